package launcher

import "github.com/childproof/childproof/verify"

// rank is one worker of a multi-process job: its fingerprint, its pidfd
// and the exec-time evidence of its environment (nil: none).
type rank struct {
	// role is the worker role that selected it ("": the unlabelled
	// worker block).
	role string
	fp   verify.Fingerprint
	fd   int
	ev   *verify.ExecEnv
}
