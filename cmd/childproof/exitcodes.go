package main

import "github.com/childproof/childproof/outcome"

// The outcomes the commands name (package outcome holds the one table
// of their exit codes, contract §2; run exits with outcome.ExitCode of a
// command's error).
const (
	exitOK       = outcome.OK
	exitFindings = outcome.Findings // lint/check found an error; run refused to launch
	exitUsage    = outcome.Usage    // usage error, invalid spec, unreadable or unparsable script
	exitForeign  = outcome.Foreign  // the port is held by a process childproof did not start
	exitExited   = outcome.Exited   // the worker exited or never appeared before it was ready

	// exitNotRecorded: no launch of that name is recorded (stop, logs,
	// history, relaunch, verify, explain). Its worker "never appeared",
	// as far as this state dir knows: the same command becomes valid once
	// the launch runs, so it is not a usage error. systemctl also has a
	// code of its own for a unit that is not loaded.
	exitNotRecorded = outcome.NotRecorded
)

// notRecorded is the error of a command given a launch name that the
// state dir has no record of.
func notRecorded(err error, hint string) error {
	return &exitError{code: exitNotRecorded, err: err, hint: hint}
}
