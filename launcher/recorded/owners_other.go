//go:build !linux

package recorded

import (
	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Off Linux nothing launches: no worker role has a process.
func owners(p proc.FS, l *spec.Launch, rec *statedir.Record) map[int]verify.PortOwners { return nil }
