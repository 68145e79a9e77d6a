package main

import (
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/verify"
)

// Exit codes (contract §2). A verification report's exit_code is the
// status the CLI exits with, so those values are the report's.
const (
	exitOK       = verify.CodeOK
	exitFindings = 1                  // lint/check found an error; run refused to launch
	exitUsage    = verify.CodeUsage   // usage error, invalid spec, unreadable or unparsable script
	exitVerify   = verify.CodeVerify  // verification failed on the worker
	exitForeign  = verify.CodeForeign // the port is held by a process childproof did not start
	exitExited   = verify.CodeExited  // the worker exited or never appeared before it was ready
	exitLocked   = 6                  // another launch of the same name holds the lock

	// exitNotRecorded: no launch of that name is recorded (stop, logs,
	// history, relaunch, verify, explain). Its worker "never appeared",
	// as far as this state dir knows: the same command becomes valid once
	// the launch runs, so it is not a usage error. systemctl also has a
	// code of its own for a unit that is not loaded.
	exitNotRecorded = exitExited
	// exitInterrupted: SIGINT or SIGTERM stopped childproof before the
	// launch was verified; what it started was stopped (128+SIGINT, as a
	// shell reports a command killed by Ctrl-C).
	exitInterrupted = 130
)

// errorKind is a kind of failure a command reports.
type errorKind string

// exitTable maps every kind of failure to its exit code: the one place
// where they are decided (docs/cli.md, "Exit codes", shows the same table;
// TestExitTable keeps them equal).
var exitTable = []struct {
	kind errorKind
	code int
}{
	{"ok", exitOK},
	{"lint or check error finding", exitFindings},
	{"run refused by a lint finding", exitFindings},
	{"usage error", exitUsage},
	{"invalid spec", exitUsage},
	{"unreadable or unparsable script", exitUsage},
	{"untrusted state dir", exitUsage},
	{"verification failed", exitVerify},
	{"untrusted record", exitVerify},
	{"unexpected relaunch delta", exitVerify},
	{"foreign port holder", exitForeign},
	{"worker exited or not ready", exitExited},
	{"no launch recorded", exitNotRecorded},
	{"recorded worker gone", exitExited},
	{"launch locked", exitLocked},
	{"interrupted", exitInterrupted},
}

// exitFor is the exit code of kind (the table's; a kind not in it is a
// programming error, exit 2).
func exitFor(kind errorKind) int {
	for _, e := range exitTable {
		if e.kind == kind {
			return e.code
		}
	}
	return exitUsage
}

// outcomeKinds are the library's outcomes as the table's kinds.
var outcomeKinds = map[launcher.Outcome]errorKind{
	launcher.Invalid:  "usage error",
	launcher.Unproven: "verification failed",
	launcher.Foreign:  "foreign port holder",
	launcher.Exited:   "worker exited or not ready",
	launcher.Locked:   "launch locked",
}

// exitCode is the exit status for a library error: its report's exit code
// when it carries one, else its outcome's.
func exitCode(le *launcher.Error) int {
	if le.Report != nil {
		return le.Report.ExitCode
	}
	if le.Kind == launcher.KindNotRecorded {
		return exitFor("no launch recorded")
	}
	if k, ok := outcomeKinds[le.Outcome]; ok {
		return exitFor(k)
	}
	return exitUsage
}

// notRecorded is the error of a command given a launch name that the
// state dir has no record of.
func notRecorded(err error, hint string) error {
	return &exitError{code: exitFor("no launch recorded"), err: err, hint: hint}
}
