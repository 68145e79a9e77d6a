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
	// RecordErr says why the record could not be marked stopped (a full
	// disk, a read-only state dir): the processes are stopped, the record
	// still says running.
	RecordErr error
	// Newer is set when the record was not marked because a newer launch
	// of the name replaced it meanwhile.
	Newer bool
}
