package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/childproof/childproof/cmd/childproof/internal/console"
	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/probe"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/proctree"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// This file words a launcher error for the command's user: the library
// says what failed and what would fix it (Error.Fix and its fields) in Go
// terms; the hints here name the command's flags, its commands and the
// spec language's attributes.

// cliWords are the spec language's names for a launch's environment
// sources.
var cliWords = launcher.Words{Inherit: "inherit", Env: "env", EnvFile: "env_file", Export: "export", User: "user = ", Group: "group = "}

// forCLI rewords le's message (and its report's problem) where the
// library's names a Go field or a context: a user or group that does not
// exist, a required variable no source gave, a start that Ctrl-C or SIGTERM ended, a launch that breaks a
// rule of the spec language.
func forCLI(le *launcher.Error) {
	var ie *schema.InvalidError
	if errors.As(le, &ie) {
		ie.GoNames = false
	}
	// The spec's user and group, and its readiness fields in a not-ready
	// failure, as the spec names them.
	words := func(s string) string { return s }
	if l := le.Spec; l != nil && (l.User != "" || l.Group != "") {
		goName, cliName := launcher.GoWords.RunAs(l.User, l.Group), cliWords.RunAs(l.User, l.Group)
		words = func(s string) string { return strings.Replace(s, goName, cliName, 1) }
	}
	ready := func(s string) string { return s }
	if le.Fix == launcher.FixNotReady && le.Spec != nil {
		p := "not ready within " + le.Spec.ReadyTimeout().String() + ": "
		ready = func(s string) string { return readyWords(s, p) }
	}
	notesForCLI(le.Report)
	if le.Report != nil {
		failure := le.Msg == le.Report.Failure()
		for i, p := range le.Report.Problems {
			m := words(problemForCLI(p))
			if p.Kind == verify.KindNotReady {
				m = ready(m)
			}
			le.Report.Problems[i].Message = m
		}
		if failure {
			le.Msg = le.Report.Failure()
		}
	}
	le.Msg = ready(words(le.Msg))
	if efe, ok := le.Err.(*relaunch.EnvFileError); ok && le.Msg == "" {
		le.Msg, le.Err = envFileErrText(efe), nil
	}
	if oe, ok := le.Err.(*relaunch.OptionError); ok && le.Msg == "" {
		le.Msg, le.Err = oe.Say(relaunchFlag), nil
	}
	if le.Fix == launcher.FixDeclareDelta && le.Report != nil && len(le.Report.Problems) > 0 {
		le.Msg = "the relaunch would change more than the --set names: " + le.Report.Problems[0].Message + "; nothing was stopped"
	}
	switch {
	case le.Fix == launcher.FixMissing && le.Missing != nil:
		msg, _ := le.Missing.Say(cliWords)
		rewordProblem(le.Report, verify.KindEnvMissing, msg)
		le.Msg = msg
	case le.Fix == launcher.FixNoSuchUser && le.Spec != nil:
		le.Msg = fmt.Sprintf("launch %q: user = %q: no such user on this machine", le.Spec.Name, le.Spec.User)
	case le.Fix == launcher.FixNoSuchGroup && le.Spec != nil:
		le.Msg = fmt.Sprintf("launch %q: group = %q: no such group on this machine", le.Spec.Name, le.Spec.Group)
	case (le.Fix == launcher.FixStop || le.Fix == launcher.FixOtherSpec) && le.Outcome == outcome.Foreign && le.Port != 0:
		// The previous launch holds the port and the spec does not
		// replace it.
		rewordProblem(le.Report, verify.KindPortForeign, fmt.Sprintf("port %d is held by our own previous launch of %q (pid %d) and on_stale is %q: %s", le.Port, le.Name, le.Pid, "fail", le.Other))
	case le.Outcome == outcome.Interrupted && le.Report != nil && le.Report.Has(verify.KindInterrupted):
		// The command's context ends at Ctrl-C or SIGTERM: its own
		// "context canceled" adds nothing.
		rewordProblem(le.Report, verify.KindInterrupted, "Ctrl-C or SIGTERM before the worker was ready; what was started is stopped")
		le.Msg, le.Err = "interrupted before the worker was ready; what was started is stopped", nil
	}
}

// cliErr is err, a failure that is not a *launcher.Error, in the
// command's words: an env file relaunch could not read or write names
// --in-env-file.
func cliErr(err error) error {
	if efe, ok := err.(*relaunch.EnvFileError); ok {
		return errors.New(envFileErrText(efe))
	}
	return err
}

// envFileErrText is what relaunch says of an env file of --in-env-file it
// could not edit, read or write.
func envFileErrText(e *relaunch.EnvFileError) string {
	what := "--in-env-file"
	if e.Name != "" {
		what += " " + e.Name
	}
	return what + ": " + e.Err.Error()
}

// readyWords is s, a not-ready message starting with prefix, with what
// follows it in the spec's words (console.ReadyWords).
func readyWords(s, prefix string) string {
	if what, ok := strings.CutPrefix(s, prefix); ok {
		return prefix + console.ReadyWords(what)
	}
	return s
}

// relaunchWords are relaunch's flags for what sets an override and
// what passes a variable, and the spec's name of the env file.
var relaunchWords = relaunch.Words{Set: "--set", Var: "--var", EnvFile: "env_file"}

// relaunchFlag is relaunch's flag for a relaunch.Options field.
func relaunchFlag(field string) string {
	switch field {
	case "InEnvFile":
		return "--in-env-file"
	}
	return "--" + strings.ToLower(field)
}

// reportForCLI words r's problems that carry a note (problemForCLI) and
// its notes (notesForCLI) in the command's words.
func reportForCLI(r *verify.Report) {
	for i, p := range r.Problems {
		r.Problems[i].Message = problemForCLI(p)
	}
	notesForCLI(r)
}

// countNote finds the worker count an equal-matches note asks for
// (proctree.CountWords).
var countNote = regexp.MustCompile(strings.Replace(regexp.QuoteMeta(proctree.CountWords), "%d", `(\d+)`, 1))

// notesForCLI words r's notes in the command's words: the worker count
// an equal-matches note asks for is the spec's worker { count = N }.
func notesForCLI(r *verify.Report) {
	if r == nil {
		return
	}
	for i, n := range r.Notes {
		r.Notes[i] = countNote.ReplaceAllString(n, "set worker { count = ${1} }")
	}
}

// problemForCLI is p's message with what its note words in Go in the
// command's words: a port on every interface (address,
// allow_all_interfaces; the message's own text, masked, is kept, only
// its Go tail changes), a relaunch's delta (its flags).
func problemForCLI(p verify.Problem) string {
	switch n := p.Note.(type) {
	case *verify.AnyAddressNote:
		if base, ok := strings.CutSuffix(p.Message, n.Tail(verify.GoAnyAddress)); ok {
			return base + n.Tail(`declare address = "::" with allow_all_interfaces = true`)
		}
	case *relaunch.DeltaNote:
		return n.Say(relaunchWords)
	}
	return p.Message
}

// rewordProblem sets the message of r's last problem of kind k.
func rewordProblem(r *verify.Report, k verify.Kind, msg string) {
	if r == nil {
		return
	}
	for i := len(r.Problems) - 1; i >= 0; i-- {
		if r.Problems[i].Kind == k {
			r.Problems[i].Message = msg
			return
		}
	}
}

// cliHint is le's hint for the command's user: from its Fix and fields,
// else (FixNone) the library's own, which names nothing of Go's.
func cliHint(le *launcher.Error) string {
	h := fixHint(le)
	if le.Rollback > 0 {
		back := fmt.Sprintf("the previous launch was stopped and %q is down: 'childproof relaunch %s --round %d' brings round %d back", le.Name, le.Name, le.Rollback, le.Rollback)
		if h == "" {
			return back
		}
		return h + "; " + back
	}
	return h
}

func fixHint(le *launcher.Error) string {
	name := le.Name
	switch le.Fix {
	case launcher.FixNone:
		return le.Hint
	case launcher.FixStop:
		if le.Outcome == outcome.Foreign {
			return "stop it with 'childproof stop " + name + "', or set on_stale = \"replace\""
		}
		return "stop it with 'childproof stop " + name + "', or set on_stale = \"replace\" to replace it"
	case launcher.FixOtherSpec:
		return fmt.Sprintf("launch names are shared by every spec file using this state dir: rename this launch, give each project its own state dir (CHILDPROOF_STATE_DIR or --state-dir), or, if the other one is yours to end, 'childproof stop %s' first", name)
	case launcher.FixLockHeld:
		return "wait for it to finish, or stop it with 'childproof stop " + name + "'"
	case launcher.FixStateDirTrust:
		return "use a state dir on a path only root controls (--state-dir /root/.local/state/childproof, or CHILDPROOF_STATE_DIR); " +
			"under 'sudo', keep root's HOME (sudo without -E, or sudo -H)"
	case launcher.FixStateDirMode:
		return le.Other + "; or use a state dir of your own (--state-dir, CHILDPROOF_STATE_DIR)"
	case launcher.FixStateDirWritable:
		return "make the state dir writable (remount it read-write, free some space) or use another (--state-dir, CHILDPROOF_STATE_DIR)"
	case launcher.FixRecordUnmarked:
		return "free space in (or make writable) " + le.Path + "; 'childproof ps' shows the launch as gone until then"
	case launcher.FixRecordUnreadable:
		return "'childproof ps' shows the state dir's records; a new launch of " + name + " replaces it"
	case launcher.FixNotReady:
		h := notReadyHint(le.Spec)
		if le.Other != "" {
			h = "the launched tree runs " + le.Other + ": if one of them is the worker, the selector is wrong, not the timeout; else " + h
		}
		return h
	case launcher.FixReadyPath:
		var se *probe.StatusError
		if errors.As(le.Err, &se) && le.Spec != nil {
			return fmt.Sprintf("the worker is up and answers GET %s with %s: check ready { http = %q } (the path it serves its health check on), not the timeout", se.Path, se.Status, le.Spec.Ready.HTTP)
		}
	case launcher.FixSelector:
		if le.Spec != nil && le.Spec.Worker.Exe != "" {
			return fmt.Sprintf("the selector is wrong, not the timeout: select the process that serves, worker { exe = %q }, or drop the worker block to take the port's owner", le.Other)
		}
		return fmt.Sprintf("the selector is wrong, not the timeout: select the process that serves, worker { comm = %q }, or drop the worker block to take the port's owner", le.Other)
	case launcher.FixReport:
		if le.Report != nil && le.Spec != nil {
			return reportHint(le.Report, le.Spec)
		}
	case launcher.FixMissing:
		if le.Missing != nil {
			_, h := le.Missing.Say(cliWords)
			return h
		}
	case launcher.FixArgvChange:
		return "relaunch reuses the recorded --var values; if the command line is to change, say so with --var NAME=VALUE (or start it anew: childproof stop " + name + ", then run)"
	case launcher.FixStartFirst:
		return "start it first with 'childproof run'"
	case launcher.FixRecordOld:
		return "start it with 'childproof run' (this childproof records them)"
	case launcher.FixDeclareDelta:
		return "declare each intended change with --set (repeat the recorded launch's --set values to keep them)"
	case launcher.FixDeltaFound:
		return "a relaunch must change exactly the --set names; declare each intended change with --set, or undo the others (the previous record stays the baseline)"
	case launcher.FixEnvFileHeld:
		return fmt.Sprintf("drop that one first (--unset %s), or edit the file by hand", le.Other)
	case launcher.FixReplayRound:
		return fmt.Sprintf("replay a readable round with --round N ('childproof history %s' lists them)", name)
	case launcher.FixRounds:
		return fmt.Sprintf("'childproof history %s' lists the rounds", name)
	case launcher.FixUnsetWhat:
		return "--unset drops an override carried from an earlier round's --set"
	case launcher.FixSecretsAgain:
		flags := make([]string, 0, len(le.Names))
		for _, n := range le.Names {
			flags = append(flags, "--set-secret "+n)
		}
		return fmt.Sprintf("export them and add %s (or drop them with --unset NAME)", strings.Join(flags, " "))
	case launcher.FixSpecArg:
		return "pass the spec: SPEC:" + le.Other
	case launcher.FixStartAgain:
		return "start it again with 'childproof run' (or 'childproof up')"
	case launcher.FixNoSuchUser:
		return "create the user, or name one that exists (getent passwd NAME)"
	case launcher.FixNoSuchGroup:
		return "create the group, or name one that exists (getent group NAME)"
	}
	return le.Hint
}

// notReadyHint names ready.timeout with its value and where the output so
// far is.
func notReadyHint(l *schema.Launch) string {
	t := "ready.timeout is " + l.ReadyTimeout().String()
	if l.Ready.Timeout <= 0 {
		t += " (the default)"
	}
	return fmt.Sprintf("%s; a worker that needs longer to start needs a longer one: ready { timeout = \"%s\" } in the launch block; what it printed meanwhile: childproof logs %s",
		t, (2 * l.ReadyTimeout()).String(), l.Name)
}

// reportHint says where to look for the cause of a failed verification
// of launch l. The failed tree is stopped: a command it names must work
// on what is left (the spec), not on the tree.
func reportHint(r *verify.Report, l *schema.Launch) string {
	switch {
	case r.Caused(verify.ErrStaleExecEvidence, verify.KindEnvUnreadable):
		return "the worker exec'd from a thread other than its main one (childproof follows processes, not threads, so that exec's environment was not captured) and then rewrote its environment block: exec the worker from the main thread, or keep its environment block intact"
	case r.Has(verify.KindEnvUnreadable):
		return "the worker rewrote its environment block after its exec (a process title written over it, as setproctitle does, or the block moved or emptied); childproof reads the block at the worker's exec while it watches the launch — leave exec-time capture on (CHILDPROOF_NO_EXEC_CAPTURE unset), and let nothing else trace the launch"
	case r.EmptyAsGiven() != "":
		return fmt.Sprintf("%s was already empty when childproof started the launch (the worker has the very value it was given): give it a non-empty value in the spec's env, its env_file or the caller's environment", r.EmptyAsGiven())
	case r.Has(verify.KindEnvMismatch, verify.KindEnvMissing):
		h := "childproof set it when it started the launch: something between the launch and the worker changed it (an env file re-sourced, an rc file, a wrapper)"
		if l.SpecPath != "" {
			h += "; 'childproof check " + l.SpecPath + ":" + l.Name + "' lints the dispatch chain for such a line"
		}
		return h
	case r.Has(verify.KindWrapper):
		return "exec the worker directly, without a login or interactive shell or an environment-resetting wrapper"
	case r.Has(verify.KindBindAddress):
		return "bind the worker to the declared address, or declare the one it uses (0.0.0.0 or :: only with allow_all_interfaces = true)"
	case r.Has(verify.KindPortNotOwned):
		return "the process that listens is not the worker: check worker { comm | exe }, or let the worker be the port's owner"
	}
	return ""
}

// refusedHint says what a command the lint refused can do instead: with
// an editable target, write the name into its env file with
// --in-env-file; else fix the script or launch with --no-lint.
func refusedHint(e *envres.RefusedError) string {
	t := e.Editable
	if t == nil {
		return "fix the script, or launch anyway with --no-lint (verification on the worker still runs)"
	}
	n := t.Name
	return fmt.Sprintf("%s re-sources %s, which sets %s (%s): add --in-env-file to write %s into that file instead (the dispatcher keeps its re-source; --unset %s puts the file back); or fix the script, or --no-lint",
		t.SiteAt(), envres.RebasePath(t.File, "", e.WorkDir), n, t.FileAt(e.WorkDir), n, n)
}

// noteText is what relaunch --in-env-file says of a note, as one line
// without a prefix ("--in-env-file X: run.sh:2 re-sources .env: writing X
// into it at line 3"), its files relative to wd when they lie below it
// (wd "": as recorded).
func noteText(n envres.RelaunchNote, wd string) string {
	name, t := n.Target.Name, n.Target.EnvFileTarget
	if n.Kind == envres.NoteSecretNotKept {
		return fmt.Sprintf("--in-env-file %s: %s is secret: the value it replaces in %s is not kept, so --unset %s and --round N cannot restore it", name, name, t.FileAt(wd), name)
	}
	where := "line " + fmt.Sprint(t.Line)
	if t.Line == 0 {
		where = "a line appended at its end (it does not assign " + name + " itself)"
	}
	return fmt.Sprintf("--in-env-file %s: %s re-sources %s: writing %s into it at %s", name, t.SiteAt(), envres.RebasePath(t.File, "", wd), name, where)
}

// envFileEditText is the message and hint of a relaunch --in-env-file
// that has no env file to edit, or one it cannot edit.
func envFileEditText(e *envres.EnvFileEditError) (msg, hint string) {
	var be *envres.BlockedError
	if errors.As(e.Err, &be) {
		n, t := be.Name, be.Target
		return fmt.Sprintf("--in-env-file %s: the load at %s clobbers %s, but %s; nothing was edited or stopped", n, t.SiteAt(), n, t.Why(e.WorkDir)),
			"fix the dispatch chain (see docs/crash-fix-rounds.md, \"A dispatcher that clobbers the mitigation\")"
	}
	return fmt.Sprintf("--in-env-file: no env file of the dispatch chain clobbers %s: there is nothing to edit; nothing was stopped", strings.Join(e.Names, ", ")),
		"drop --in-env-file: the --set value reaches the worker as an override"
}
