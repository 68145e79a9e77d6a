package launcher

import (
	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/launcher/launchenv"
	"github.com/childproof/childproof/spec"
)

// Env is the resolved environment of a launch (launchenv.Env).
type Env = launchenv.Env

// ResolveEnv computes a launch's environment (launchenv.Resolve).
func ResolveEnv(l *spec.Launch, set map[string]string, lookup func(string) (string, bool)) (*Env, error) {
	return launchenv.Resolve(l, set, lookup)
}

// Words name a launch's environment sources, and setting a variable in
// the caller, in a caller's terms (failure.Words).
type Words = failure.Words

// GoWords are the Words of a launch built in Go.
var GoWords = launchenv.GoWords
