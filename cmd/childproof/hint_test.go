package main

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// TestCLIHint: the command words each remedy a launcher error names in
// its own flags, commands and spec attributes, exactly as the library
// did when it carried them (the words of main before issue 39's move).
func TestCLIHint(t *testing.T) {
	web := &schema.Launch{Name: "web", SpecPath: "/p/web.hcl", Ready: schema.Ready{Timeout: 3 * time.Second}}
	tests := []struct {
		e    launcher.Error
		want string
	}{
		{launcher.Error{Fix: launcher.FixNone, Hint: "create the group"}, "create the group"},
		{launcher.Error{Outcome: outcome.Foreign, Fix: launcher.FixStop, Name: "web"}, `stop it with 'childproof stop web', or set on_stale = "replace"`},
		{launcher.Error{Outcome: outcome.Locked, Fix: launcher.FixStop, Name: "web"}, `stop it with 'childproof stop web', or set on_stale = "replace" to replace it`},
		{launcher.Error{Fix: launcher.FixLockHeld, Name: "web"}, "wait for it to finish, or stop it with 'childproof stop web'"},
		{launcher.Error{Fix: launcher.FixStateDirMode, Other: "chmod go-w /s"}, "chmod go-w /s; or use a state dir of your own (--state-dir, CHILDPROOF_STATE_DIR)"},
		{launcher.Error{Fix: launcher.FixRecordUnmarked, Path: "/s"}, "free space in (or make writable) /s; 'childproof ps' shows the launch as gone until then"},
		{launcher.Error{Fix: launcher.FixNotReady, Spec: web}, `ready.timeout is 3s; a worker that needs longer to start needs a longer one: ready { timeout = "6s" } in the launch block; what it printed meanwhile: childproof logs web`},
		{launcher.Error{Fix: launcher.FixSelector, Spec: web, Other: "python3"}, `the selector is wrong, not the timeout: select the process that serves, worker { comm = "python3" }, or drop the worker block to take the port's owner`},
		{launcher.Error{Fix: launcher.FixSecretsAgain, Names: []string{"A", "B"}}, "export them and add --set-secret A --set-secret B (or drop them with --unset NAME)"},
		{launcher.Error{Fix: launcher.FixRounds, Name: "job", Rollback: 1}, `'childproof history job' lists the rounds; the previous launch was stopped and "job" is down: 'childproof relaunch job --round 1' brings round 1 back`},
		{launcher.Error{Fix: launcher.FixMissing, Missing: &launcher.Missing{Names: []string{"K"}, NotPassed: []string{"K"}, Inherit: []string{"PATH"}}}, "add K to inherit, or give it a value in env"},
	}
	for _, tt := range tests {
		if got := cliHint(&tt.e); got != tt.want {
			t.Errorf("fix %d: hint\n%s\nwant\n%s", tt.e.Fix, got, tt.want)
		}
	}
}

// TestForCLI: the command rewords a launcher error's Go message in the
// spec language's words, exactly as the library said it before issue 39.
func TestForCLI(t *testing.T) {
	u := &schema.Launch{Name: "u", User: "nobody2", Group: "nogroup2"}
	tests := []struct {
		e    launcher.Error
		want string
	}{
		{launcher.Error{Fix: launcher.FixNoSuchUser, Spec: u, Msg: `launch "u": User "nobody2": no such user on this machine`}, `launch "u": user = "nobody2": no such user on this machine`},
		{launcher.Error{Fix: launcher.FixNoSuchGroup, Spec: u, Msg: `launch "u": Group "nogroup2": no such group on this machine`}, `launch "u": group = "nogroup2": no such group on this machine`},
		{launcher.Error{Fix: launcher.FixNotReady, Spec: &schema.Launch{Name: "x", Ready: schema.Ready{Exec: []string{"test"}, Timeout: 3 * time.Second}}, Msg: "not ready within 3s: Ready.Exec test: exit status 1"}, "not ready within 3s: ready.exec test: exit status 1"},
		{launcher.Error{Fix: launcher.FixNotReady, Spec: &schema.Launch{Name: "x", Ready: schema.Ready{Exec: []string{"probe"}}}, Msg: "not ready within 10s: Ready.Exec: probe: not found in the launch's PATH"}, "not ready within 10s: ready.exec: probe: not found in the launch's PATH"},
		{launcher.Error{Fix: launcher.FixNotReady, Spec: &schema.Launch{Name: "x", Ready: schema.Ready{Log: "up$"}}, Msg: `not ready within 10s: no line of its output matched Ready.Log "up$"`}, `not ready within 10s: no line of its output matched ready { log = "up$" }`},
	}
	for _, tt := range tests {
		forCLI(&tt.e)
		if diff := cmp.Diff(tt.want, tt.e.Msg); diff != "" {
			t.Errorf("fix %d: message (-want +got):\n%s", tt.e.Fix, diff)
		}
	}
}

// TestForCLIStale: the problem of a port the previous launch holds names
// on_stale, as before issue 39.
func TestForCLIStale(t *testing.T) {
	r := verify.NewReport("api")
	r.Add(verify.KindPortForeign, "port 8000 is held by our own previous launch of \"api\" (pid 7) and OnStale is not \"replace\": pid 7 (srv)")
	e := launcher.Error{Outcome: outcome.Foreign, Fix: launcher.FixStop, Name: "api", Port: 8000, Pid: 7, Other: "pid 7 (srv)", Report: r}
	forCLI(&e)
	want := `port 8000 is held by our own previous launch of "api" (pid 7) and on_stale is "fail": pid 7 (srv)`
	if diff := cmp.Diff(want, r.Problems[0].Message); diff != "" {
		t.Errorf("problem (-want +got):\n%s", diff)
	}
}

// TestEnvFileErrText: relaunch's env file failures (a
// *relaunch.EnvFileError, alone or as a *launcher.Error's cause) say
// --in-env-file, and its option failures (a *relaunch.OptionError) name
// the flags, as they did before issue 39.
func TestEnvFileErrText(t *testing.T) {
	cause := errors.New("line 3: bad quote")
	tests := []struct {
		err  error
		want string
	}{
		{&launcher.Error{Outcome: outcome.Usage, Fix: launcher.FixEnvFileHeld, Other: "B", Path: "/p/.env",
			Err: &relaunch.EnvFileError{Name: "A", File: "/p/.env", Err: errors.New("/p/.env already holds the edit of B (round 2): one edit per env file")}},
			"--in-env-file A: /p/.env already holds the edit of B (round 2): one edit per env file"},
		{&launcher.Error{Outcome: outcome.Usage, Err: &relaunch.EnvFileError{Name: "A", File: "/p/.env", Err: fmt.Errorf("cannot edit %s: %w", "/p/.env", cause)}},
			"--in-env-file A: cannot edit /p/.env: line 3: bad quote"},
		{&launcher.Error{Outcome: outcome.Usage, Err: &relaunch.EnvFileError{File: "/p/.env", Err: errors.New("/p/.env is not a regular file (a symlink, a pipe?): it is not edited")}},
			"--in-env-file: /p/.env is not a regular file (a symlink, a pipe?): it is not edited"},
		{&relaunch.EnvFileError{File: "/p/.env", Err: &fs.PathError{Op: "lstat", Path: "/p/.env", Err: syscall.ENOENT}},
			"--in-env-file: lstat /p/.env: no such file or directory"},
		{&relaunch.EnvFileError{File: "/p/.env", Err: fmt.Errorf("writing %s: %w", "/p/.env", syscall.ENOSPC)},
			"--in-env-file: writing /p/.env: no space left on device"},
		{&launcher.Error{Outcome: outcome.Usage, Fix: launcher.FixRounds, Name: "job", Err: &relaunch.OptionError{Fields: []string{"Round"}, Arg: "3", Err: fmt.Errorf("no readable round 3 of %q: %w", "job", cause)}},
			`--round 3: no readable round 3 of "job": line 3: bad quote`},
		{&launcher.Error{Outcome: outcome.Usage, Err: &relaunch.OptionError{Fields: []string{"Unset", "Set"}, Arg: "A", Err: errors.New("give one of them")}},
			"--unset A and --set A: give one of them"},
		{&launcher.Error{Outcome: outcome.Usage, Err: &relaunch.OptionError{Fields: []string{"Unset"}, Arg: "A", Err: errors.New("A is not an override of round 4 (its overrides: B)")}},
			"--unset A: A is not an override of round 4 (its overrides: B)"},
		{&launcher.Error{Outcome: outcome.Usage, Err: &relaunch.OptionError{Fields: []string{"InEnvFile"}, Arg: "A", NotIn: "Set"}},
			"--in-env-file A: A is not a --set name of this round"},
	}
	for _, tt := range tests {
		got := cliErr(tt.err).Error()
		if le, ok := tt.err.(*launcher.Error); ok {
			forCLI(le)
			got = le.Error()
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("message (-want +got):\n%s", diff)
		}
	}
}

// TestDeltaNoteCLI: a relaunch's delta problems (a *relaunch.DeltaNote
// as the Problem's Note) name --set and --var, as they did before issue 39.
func TestDeltaNoteCLI(t *testing.T) {
	notes := []*relaunch.DeltaNote{
		{What: relaunch.DeltaWouldChange, Var: "A"},
		{What: relaunch.DeltaDropped, Var: "B"},
		{What: relaunch.DeltaUnchanged, Var: "C"},
		{What: relaunch.DeltaArgv, Argv: `argv[1] "1" → "2"`},
		{What: relaunch.DeltaUnexpected, Var: "D", How: relaunch.DeltaChanged, Source: relaunch.SourceEnvFile, EnvFile: "job.env"},
		{What: relaunch.DeltaUnexpected, Var: "E", How: relaunch.DeltaRemoved, Source: relaunch.SourcePreviousSet},
	}
	r := verify.NewReport("job")
	for _, n := range notes {
		r.Problems = append(r.Problems, verify.Problem{Kind: verify.KindDelta, Message: n.String(), Subject: verify.Subject{Var: n.Var}, Note: n})
	}
	e := launcher.Error{Outcome: outcome.Delta, Fix: launcher.FixDeclareDelta, Report: r, Msg: "the relaunch would change more than the Options.Set names: " + r.Problems[0].Message + "; nothing was stopped"}
	forCLI(&e)
	want := []string{
		"A would change on the worker but is not a --set name (the spec's env gives another value than the recorded worker had)",
		"B was an override of the recorded launch (a --set of its round?) and nothing sets it now: repeat --set B=… to keep it",
		"C: declared with --set but unchanged on the worker: the recorded worker already had this value",
		`the command line changed without a --var saying so: argv[1] "1" → "2"`,
		"D changed on the worker but is not a --set name (it comes from env_file job.env: edited since the recorded launch?)",
		"E disappeared on the worker but is not a --set name (a --set of the recorded launch: repeat it to keep it)",
	}
	var got []string
	for _, p := range r.Problems {
		got = append(got, p.Message)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("the relaunch would change more than the --set names: "+want[0]+"; nothing was stopped", e.Msg); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

// TestReportForCLI: a port bound on every interface names address and
// allow_all_interfaces, in the problem and in the failure message, as it
// did before issue 39.
func TestReportForCLI(t *testing.T) {
	n := &verify.AnyAddressNote{Base: "the worker (pid 7) listens on [::]:29400, declared 127.0.0.1:29400"}
	r := verify.NewReport("train")
	r.Problems = append(r.Problems, verify.Problem{Kind: verify.KindBindAddress, Message: n.Say(verify.GoAnyAddress), Note: n})
	e := launcher.Error{Fix: launcher.FixReport, Report: r, Msg: r.Failure()}
	forCLI(&e)
	want := n.Base + ` (a launcher's rendezvous port, torchrun's agent for one, is bound on every interface whatever its --master_addr says: declare address = "::" with allow_all_interfaces = true for it)`
	if diff := cmp.Diff(want, r.Problems[0].Message); diff != "" {
		t.Errorf("problem (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("verification failed on the worker: "+want, e.Msg); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}
