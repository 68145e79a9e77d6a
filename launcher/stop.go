package launcher

import "github.com/childproof/childproof/verify"

// StopResult says what StopRecord did.
type StopResult struct {
	// Worker is what had become of the recorded worker before the stop.
	Worker verify.Liveness
	// Signalled is set when SIGTERM was sent; Killed when SIGKILL was needed.
	Signalled, Killed bool
	// Exited is set when the worker is gone afterwards.
	Exited bool
	// Message describes the outcome for a user.
	Message string
}
