package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/verify"
)

// This file holds what run, verify, explain, ps and stop share.

// writeReport prints a run/verify report: JSON (the shape docs/launcher.md documents) on stdout, or text.
func (a *app) writeReport(w io.Writer, r *verify.Report) {
	reportForCLI(r)
	switch {
	case a.format == "json" && a.jsonLines:
		present.JSONLine(w, r)
		return
	case a.format == "json":
		present.JSON(w, r)
		return
	}
	r.WriteText(a.painted(w, reportPaint))
}

// launchErr turns a launcher error into an exitError, printing its report first.
func (a *app) launchErr(err error) error {
	return a.launchErrWith(err, func(r *verify.Report) { a.writeReport(a.stdout, r) })
}

// launchErrWith is launchErr with the report written by write.
func (a *app) launchErrWith(err error, write func(*verify.Report)) error {
	var le *launcher.Error
	if !errors.As(err, &le) {
		return &exitError{code: outcome.Of(err), err: cliErr(err)}
	}
	forCLI(le)
	if le.Report != nil {
		write(le.Report)
	}
	msg := le.Error()
	if le.Report != nil && len(le.Report.Tail) > 0 && a.format == "text" {
		// The text report already shows the last lines (and what
		// followed them in the message).
		msg = le.Msg
	}
	return &exitError{code: le.OutcomeKind(), err: errors.New(msg), hint: cliHint(le)}
}

// forwardSignals starts catching SIGINT, SIGTERM and SIGHUP for a
// foreground launch (before it starts, so that none is lost); supervise
// forwards them. Call the returned stop when done.
func forwardSignals(detach bool) (chan os.Signal, func()) {
	sigs := make(chan os.Signal, 4)
	if detach {
		return sigs, func() {}
	}
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	return sigs, func() { signal.Stop(sigs) }
}

// supervise returns at once for a detached launch; otherwise it forwards
// sigs to the launch's process group (group.Forward) and exits with the
// worker's status.
func (a *app) supervise(la *launcher.Launch, name string, detach bool, sigs chan os.Signal) error {
	if detach {
		fmt.Fprintf(a.stderr, "childproof: %s runs detached (worker pid %d); stop it with: childproof stop %s\n", name, la.Pid(), name)
		return nil
	}
	shrinkForSupervision()
	return group.Forward(la, sigs, a.escalation(la.Spec, la.Signal, la.Pid))
}

// recordedSpecArg resolves a NAME|SPEC[:NAME] argument
// (launcher.State.SpecArg): a recorded launch NAME becomes SPEC:NAME of
// the spec file its record names. A NAME with no record (and no such spec
// file) is exit 5, as for every command that acts on a recorded launch.
func (a *app) recordedSpecArg(st *launcher.State, arg string) (string, *launcher.Record, error) {
	spec, rec, err := st.SpecArg(arg)
	if err != nil {
		return "", nil, a.recordErr(err, "'childproof ps --all' lists the recorded launches; a first launch is 'childproof run SPEC'")
	}
	return spec, rec, nil
}

// recordErr is the exit error of a failure to find a recorded launch:
// not recorded (exit 5, with hint), else as launchErr.
func (a *app) recordErr(err error, hint string) error {
	var le *launcher.Error
	if errors.As(err, &le) && outcome.Of(err) == outcome.NotRecorded {
		return notRecorded(errors.New(le.Msg), hint)
	}
	return a.launchErr(err)
}

// recorded reports whether the state dir holds a record of name (one that
// fails authentication counts: it is there, and refused where it is used).
func recorded(st *launcher.State, name string) bool {
	_, err := st.Load(name)
	return err == nil || errors.Is(err, launcher.ErrUntrusted)
}
