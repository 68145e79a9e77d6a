package mask

import (
	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/verify"
)

// Exe is fp with its exe and comm masked by secrets: a path built from a
// secret (dir = env("MODEL_DIR")) is stored and shown as
// <MODEL_DIR>/bin/server, never with the value; comparisons with a live
// exe read the placeholders as wildcards (verify.SameExe). A comm that is
// a secret value (worker { comm = env("X") } selected it) is stored as
// <X>, however short: a process's identity is pid, start time and pidfs
// inode, and no comparison reads the stored comm (it names the process
// in ps, stop and history).
func Exe(secrets *redact.Set, fp verify.Fingerprint) verify.Fingerprint {
	fp.Exe = secrets.Text(fp.Exe)
	fp.Comm = secrets.Arg(fp.Comm)
	return fp
}
