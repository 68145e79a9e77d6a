package present

import (
	"errors"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/verify"
	"github.com/google/go-cmp/cmp"
)

// TestDeltaWriteText pins relaunch's "delta:" lines: each way a name
// changes, carried, unchanged, carried forward and dropped names, the
// last line against one worker or several ranks, and a failed delta (no
// last line).
func TestDeltaWriteText(t *testing.T) {
	prev := &launcher.Record{Worker: verify.Fingerprint{Pid: 4242}}
	for _, c := range []struct {
		name string
		d    *relaunch.Delta
		prev *launcher.Record
		want []string
	}{
		{"nil", nil, prev, nil},
		{"identical", &relaunch.Delta{}, prev, []string{
			"  delta:   none: the worker's environment is identical (against the recorded worker, pid 4242)"}},
		{"identical, no previous", &relaunch.Delta{}, nil, []string{
			"  delta:   none: the worker's environment is identical"}},
		{"exactly declared", &relaunch.Delta{Declared: []string{"T"}, Changed: []relaunch.DeltaName{{Name: "T", How: relaunch.DeltaChanged, Declared: true}}}, prev, []string{
			"  delta:   T changed, declared with --set",
			"  delta:   exactly T changed on the worker (against the recorded worker, pid 4242)"}},
		{"declared and volatile", &relaunch.Delta{Declared: []string{"A", "T"},
			Changed:  []relaunch.DeltaName{{Name: "A", How: relaunch.DeltaAdded, Declared: true}, {Name: "MASTER_PORT", How: relaunch.DeltaChanged}, {Name: "T", How: relaunch.DeltaChanged, Declared: true}},
			Volatile: []string{"MASTER_PORT"}}, prev, []string{
			"  delta:   A added, declared with --set",
			"  delta:   MASTER_PORT changed, volatile (set anew by the launched tree on every launch; not checked)",
			"  delta:   T changed, declared with --set",
			"  delta:   exactly A, T changed on the worker (against the recorded worker, pid 4242)",
			"  delta:   volatile, not checked: MASTER_PORT"}},
		{"only volatile", &relaunch.Delta{Changed: []relaunch.DeltaName{{Name: "MASTER_PORT", How: relaunch.DeltaChanged}}, Volatile: []string{"MASTER_PORT"}}, prev, []string{
			"  delta:   MASTER_PORT changed, volatile (set anew by the launched tree on every launch; not checked)",
			"  delta:   exactly none changed on the worker (against the recorded worker, pid 4242)",
			"  delta:   volatile, not checked: MASTER_PORT"}},
		{"unexpected", &relaunch.Delta{Declared: []string{"T"},
			Changed:    []relaunch.DeltaName{{Name: "T", How: relaunch.DeltaChanged, Declared: true}, {Name: "X", How: relaunch.DeltaRemoved}},
			Unexpected: []relaunch.DeltaName{{Name: "X", How: relaunch.DeltaRemoved}}}, prev, []string{
			"  delta:   T changed, declared with --set",
			"  delta:   X removed, NOT declared"}},
		{"unchanged", &relaunch.Delta{Declared: []string{"T"}, Unchanged: []string{"T"}}, prev, []string{
			"  delta:   T unchanged, although declared with --set"}},
		{"carried, forward, dropped", &relaunch.Delta{Declared: []string{"C", "T"},
			Changed: []relaunch.DeltaName{{Name: "D", How: relaunch.DeltaRemoved}, {Name: "T", How: relaunch.DeltaChanged, Declared: true}},
			Carried: []string{"C"}, Forward: []string{"F", "G"}, Dropped: []string{"D", "E"}}, prev, []string{
			"  delta:   D removed, dropped (--unset, or not in the round replayed)",
			"  delta:   T changed, declared with --set",
			"  delta:   C unchanged, declared with --set as in the recorded launch",
			"  delta:   carried forward, unchanged: F, G",
			"  delta:   E dropped, unchanged on the worker (its value without the override is the same)",
			"  delta:   exactly D, T changed on the worker (against the recorded worker, pid 4242)"}},
		{"ranks", &relaunch.Delta{Declared: []string{"T"}, Changed: []relaunch.DeltaName{{Name: "T", How: relaunch.DeltaChanged, Declared: true}}, Ranks: 4}, prev, []string{
			"  delta:   T changed, declared with --set",
			"  delta:   exactly T changed on the worker (each of the 4 workers against the recorded worker of its rank)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b writes
			WriteDelta(&b, c.d, c.prev)
			var want string
			if c.want != nil {
				want = strings.Join(c.want, "\n") + "\n"
			}
			if diff := cmp.Diff(want, b.String()); diff != "" {
				t.Errorf("WriteDelta (-want +got):\n%s", diff)
			}
			if len(b) > 1 {
				t.Errorf("WriteDelta wrote in %d Writes, want one", len(b))
			}
		})
	}
}

// writes keeps each Write apart.
type writes []string

func (w *writes) Write(p []byte) (int, error) { *w = append(*w, string(p)); return len(p), nil }

func (w writes) String() string { return strings.Join(w, "") }

// TestRollbackText pins what relaunch --rollback says (a round that is
// back: launcher's TestRollbackTextBack, which can make its Launch).
func TestRollbackText(t *testing.T) {
	for _, c := range []struct {
		name string
		rb   relaunch.RollbackResult
		want string
	}{
		{"nothing stopped", relaunch.RollbackResult{Tried: true}, "--rollback: the previous launch was not stopped: nothing to bring back"},
		{"failed", relaunch.RollbackResult{From: 4, Err: errors.New("port 8080 is held"), Tried: true}, "--rollback of round 4 failed too: port 8080 is held"},
		{"not asked, nothing stopped", relaunch.RollbackResult{}, ""},
		{"not asked", relaunch.RollbackResult{From: 4}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := RollbackText(&c.rb, "job"); got != c.want {
				t.Errorf("RollbackText = %q, want %q", got, c.want)
			}
		})
	}
}

// TestEnvFileChangeText pins relaunch's line for each env file change,
// with the file relative to TextOptions.Dir or as recorded.
func TestEnvFileChangeText(t *testing.T) {
	in := TextOptions{Dir: "/srv/job"}
	digest := "hmac-sha256:0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		name string
		c    relaunch.EnvFileChange
		o    TextOptions
		want string
	}{
		{"edited", relaunch.EnvFileChange{Name: "T", File: "/srv/job/conf/job.env", Line: 3, How: relaunch.EnvFileEdited, OldDigest: digest}, in,
			"T: set in conf/job.env:3 (the old value, hmac-sha256:0123456789abcdef…, is in the round: childproof history job)"},
		{"edited, as recorded", relaunch.EnvFileChange{Name: "T", File: "/srv/job/conf/job.env", Line: 3, How: relaunch.EnvFileEdited, OldDigest: "d1"}, TextOptions{},
			"T: set in /srv/job/conf/job.env:3 (the old value, d1, is in the round: childproof history job)"},
		{"appended", relaunch.EnvFileChange{Name: "T", File: "/srv/job/job.env", Line: 9, How: relaunch.EnvFileAppended}, in,
			"T: appended to job.env:9 (the file did not assign it)"},
		{"restored, outside Dir", relaunch.EnvFileChange{Name: "T", File: "/etc/job.env", Line: 1, How: relaunch.EnvFileRestored}, in,
			"T: /etc/job.env:1 put back as it was before the edit, byte for byte"},
		{"kept", relaunch.EnvFileChange{Name: "K", File: "/srv/job/job.env", Line: 2, How: relaunch.EnvFileKept}, in,
			"K: job.env:2 keeps the edited value: the old value of a secret was not kept; edit the file by hand"},
		{"unknown", relaunch.EnvFileChange{Name: "K", File: "/srv/job/job.env", Line: 2, How: "moved"}, in, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := EnvFileChangeText(&c.c, "job", c.o); got != c.want {
				t.Errorf("Text = %q, want %q", got, c.want)
			}
		})
	}
}

// TestEnvDiffText pins history --diff's per-name text: how it differs
// and where it is a --set override (its value only with ShowValues and
// never a secret one; carried forward from an earlier round).
func TestEnvDiffText(t *testing.T) {
	v := "60"
	for _, c := range []struct {
		name           string
		d              launcher.EnvDiff
		o              TextOptions
		how, overrides string
	}{
		{"changed, no override", launcher.EnvDiff{How: launcher.Changed}, TextOptions{}, "changed", ""},
		{"only in A", launcher.EnvDiff{How: launcher.OnlyInA}, TextOptions{}, "only in round 2", ""},
		{"only in B", launcher.EnvDiff{How: launcher.OnlyInB}, TextOptions{}, "only in round 5", ""},
		{"unknown how", launcher.EnvDiff{}, TextOptions{}, "", ""},
		{"set in B", launcher.EnvDiff{How: launcher.OnlyInB, Overrides: []launcher.DiffOverride{{In: 5, Override: launcher.Override{Name: "T", Value: &v, Round: 5}}}}, TextOptions{},
			"only in round 5", "--set in round 5"},
		{"set in B, value", launcher.EnvDiff{How: launcher.OnlyInB, Overrides: []launcher.DiffOverride{{In: 5, Override: launcher.Override{Name: "T", Value: &v, Round: 5}}}}, TextOptions{ShowValues: true},
			"only in round 5", "--set=60 in round 5"},
		{"no round", launcher.EnvDiff{How: launcher.Changed, Overrides: []launcher.DiffOverride{{In: 5, Override: launcher.Override{Name: "T", Value: &v}}}}, TextOptions{ShowValues: true},
			"changed", "--set=60 in round 5"},
		{"secret, carried forward", launcher.EnvDiff{How: launcher.Changed, Overrides: []launcher.DiffOverride{
			{In: 2, Override: launcher.Override{Name: "K", Value: &v, Secret: true, Round: 1}},
			{In: 5, Override: launcher.Override{Name: "K", Secret: true, Round: 5}}}}, TextOptions{ShowValues: true},
			"changed", "--set=<secret> in round 1 (carried forward into round 2); --set=<secret> in round 5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := HowText(&c.d, 2, 5); got != c.how {
				t.Errorf("HowText = %q, want %q", got, c.how)
			}
			if got := OverrideText(&c.d, c.o); got != c.overrides {
				t.Errorf("OverrideText = %q, want %q", got, c.overrides)
			}
		})
	}
}
