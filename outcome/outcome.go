package outcome

import (
	"errors"
	"fmt"
)

// Kind is one way a command or launch ends: a row of the exit-code
// table. Its String is the row's name in docs/cli.md.
type Kind uint8

// The kinds, in the table's order.
const (
	// OK: verified, or no finding of severity error.
	OK Kind = iota
	// Findings: lint or check found at least one error.
	Findings
	// Refused: run (or relaunch) refused to launch because of a lint
	// error in the dispatch chain.
	Refused
	// Usage: a usage error — a flag, an argument, a state dir or an env
	// file that cannot be used; nothing was started.
	Usage
	// InvalidSpec: the spec does not parse or validate.
	InvalidSpec
	// BadScript: a script is unreadable or does not parse.
	BadScript
	// UntrustedStateDir: the state dir's path or contents fail the trust
	// checks (owner, mode, symlinks).
	UntrustedStateDir
	// Unproven: verification failed on the worker.
	Unproven
	// UntrustedRecord: a state-dir record fails authentication.
	UntrustedRecord
	// Delta: a relaunch's worker differs from the recorded one in other
	// names than the declared delta.
	Delta
	// Foreign: a declared port is held by a process childproof did not
	// start (or cannot see).
	Foreign
	// Exited: the worker exited, or never appeared, or was not ready in
	// time, before it was verified.
	Exited
	// NotRecorded: no launch of the name is recorded in the state dir.
	NotRecorded
	// Gone: the recorded worker is gone or its pid reused.
	Gone
	// Locked: another childproof launch of the same name holds the lock.
	Locked
	// Interrupted: SIGINT or SIGTERM ended the command before the launch
	// was verified; what it had started was stopped.
	Interrupted
)

// table is the exit-code table, one row per Kind (docs/cli.md, "Exit
// codes", shows it; a test keeps the two equal).
var table = [...]struct {
	name string
	code int
}{
	OK:                {"ok", 0},
	Findings:          {"lint or check error finding", 1},
	Refused:           {"run refused by a lint finding", 1},
	Usage:             {"usage error", 2},
	InvalidSpec:       {"invalid spec", 2},
	BadScript:         {"unreadable or unparsable script", 2},
	UntrustedStateDir: {"untrusted state dir", 2},
	Unproven:          {"verification failed", 3},
	UntrustedRecord:   {"untrusted record", 3},
	Delta:             {"unexpected relaunch delta", 3},
	Foreign:           {"foreign port holder", 4},
	Exited:            {"worker exited or not ready", 5},
	NotRecorded:       {"no launch recorded", 5},
	Gone:              {"recorded worker gone", 5},
	Locked:            {"launch locked", 6},
	// 128+SIGINT, as a shell reports a command ended by Ctrl-C.
	Interrupted: {"interrupted", 130},
}

// Kinds returns every Kind, in the table's order.
func Kinds() []Kind {
	ks := make([]Kind, len(table))
	for i := range table {
		ks[i] = Kind(i)
	}
	return ks
}

// Code is the exit code of k. A Kind outside the table is a usage
// error's code.
func (k Kind) Code() int {
	if int(k) >= len(table) {
		return table[Usage].code
	}
	return table[k].code
}

func (k Kind) String() string {
	if int(k) >= len(table) {
		return fmt.Sprintf("outcome.Kind(%d)", uint8(k))
	}
	return table[k].name
}

// Classified is an error that says its kind (*launcher.Error, the
// childproof command's errors).
type Classified interface {
	error
	OutcomeKind() Kind
}

// Status is a worker's own exit status as an error: a foreground launch
// whose verified worker exited non-zero ends with it (128+signal when a
// signal killed it), as docker run does. ExitCode returns it as it is.
type Status int

func (s Status) Error() string { return fmt.Sprintf("the worker exited with status %d", int(s)) }

// Of is the kind of err: OK for nil, the first Classified error's along
// err's chain (errors.As), else Usage (an error nothing classified is a
// usage error: a flag or argument that does not parse).
func Of(err error) Kind {
	if err == nil {
		return OK
	}
	var c Classified
	if errors.As(err, &c) {
		return c.OutcomeKind()
	}
	return Usage
}

// ExitCode is the exit status of a command that ended with err: 0 for
// nil, a Status along err's chain as it is, else the code of Of(err).
func ExitCode(err error) int {
	var s Status
	if errors.As(err, &s) {
		return int(s)
	}
	return Of(err).Code()
}
