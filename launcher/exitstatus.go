package launcher

import "github.com/childproof/childproof/launcher/sigtree"

// ExitStatus is how a process ended (sigtree.ExitStatus).
type ExitStatus = sigtree.ExitStatus
