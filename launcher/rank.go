package launcher

import "github.com/childproof/childproof/verify"

// rank is one worker of a multi-process job: its fingerprint, its pidfd
// and the exec-time evidence of its environment (nil: none).
type rank struct {
	fp verify.Fingerprint
	fd int
	ev *verify.ExecEnv
}
