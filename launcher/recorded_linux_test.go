package launcher

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// TestRecorded: SpecArg and LoadRunning find a recorded launch (or say
// why not, by outcome and kind), and VerifyRecorded proves it by its
// recorded evidence against the spec.
func TestRecorded(t *testing.T) {
	f := newFixture(t)
	l := f.spec("api")
	l.SpecPath = "/srv/childproof.hcl"
	if _, err := f.start(t, l, true); err != nil {
		t.Fatal(err)
	}
	bare := &schema.Launch{Name: "bare", Command: []string{filepath.Join(f.bin, "mock-srv"), "helper", "sleep"}}
	bareLa, err := f.start(t, bare, true)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Spec    string
		Record  string // the record's name, "" for none
		Outcome outcome.Kind
	}
	of := func(spec string, rec *Record, err error) result {
		o := result{Spec: spec}
		if rec != nil {
			o.Record = rec.Name
		}
		var e *Error
		if errors.As(err, &e) {
			o.Outcome = e.Outcome
		} else if err != nil {
			t.Errorf("err = %v, want an *Error", err)
		}
		return o
	}
	for _, tc := range []struct {
		arg  string
		want result
	}{
		{"api", result{Spec: "/srv/childproof.hcl:api", Record: "api"}},
		{"other.hcl:api", result{Spec: "other.hcl:api"}},
		{"missing", result{Outcome: outcome.NotRecorded}},
		{"bare", result{Outcome: outcome.Usage}}, // its record names no spec file
	} {
		spec, rec, err := f.state.SpecArg(tc.arg)
		if diff := cmp.Diff(tc.want, of(spec, rec, err)); diff != "" {
			t.Errorf("SpecArg(%q) (-want +got):\n%s", tc.arg, diff)
		}
	}

	rec, err := f.state.LoadRunning("api", procDefault)
	if err != nil {
		t.Fatal(err)
	}
	v := &verify.Verifier{State: f.state}
	if r := VerifyRecorded(context.Background(), v, l, rec); !r.Verified || r.Worker == nil || r.Worker.Pid != rec.Worker.Pid {
		t.Errorf("VerifyRecorded: %+v", r)
	}
	// The spec's require is judged: a required name the worker lacks.
	strict := *l
	strict.Require = append([]string{"NOT_PASSED"}, l.Require...)
	if r := VerifyRecorded(context.Background(), v, &strict, rec); r.Verified || !r.Has(verify.KindEnvMissing) || r.ExitCode != outcome.Unproven.Code() {
		t.Errorf("VerifyRecorded with NOT_PASSED required: %+v", r)
	}

	// VerifyRunning is LoadRunning and VerifyRecorded in one, masked.
	if r, err := f.state.VerifyRunning(context.Background(), v, l); err != nil || !r.Verified || r.Worker.Pid != rec.Worker.Pid {
		t.Errorf("VerifyRunning: %+v, %v", r, err)
	}
	if _, err := f.state.VerifyRunning(context.Background(), v, &schema.Launch{Name: "missing"}); of("", nil, err) != (result{Outcome: outcome.NotRecorded}) {
		t.Errorf("VerifyRunning of no record: %v", err)
	}

	_, err = f.state.LoadRunning("missing", procDefault)
	if diff := cmp.Diff(result{Outcome: outcome.NotRecorded}, of("", nil, err)); diff != "" {
		t.Errorf("LoadRunning of no record (-want +got):\n%s", diff)
	}
	if _, err := bareLa.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err = f.state.LoadRunning("bare", procDefault)
	if diff := cmp.Diff(result{Outcome: outcome.Gone}, of("", nil, err)); diff != "" {
		t.Errorf("LoadRunning of a stopped launch (-want +got):\n%s", diff)
	}
}

// TestExplain: ExplainRecorded judges the recorded launch against the
// digests it was started with, ExplainPid against the values given; both
// mask the launch's secrets in the rows' argv.
func TestExplain(t *testing.T) {
	f := newFixture(t)
	l := f.spec("api")
	l.Secret = []string{"MOCK_LLM_KEY"}
	l.Command = append(f.raceServe(), "--key="+secret) // serve ignores it
	if _, err := f.start(t, l, true); err != nil {
		t.Fatal(err)
	}
	rec, err := f.state.LoadRunning("api", procDefault)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v := &verify.Verifier{State: f.state}
	names := []string{"MOCK_LLM_KEY", "UNSET_NAME"}
	// The judgements, and the worker row's pid, role and states.
	type view struct {
		Judgements []verify.Judgement
		Worker     int
		Roles      []verify.Role
		States     []verify.VarState
	}
	seen := func(t *testing.T, x *verify.Explanation) view {
		t.Helper()
		var vw view
		vw.Judgements = x.Judgements
		for _, r := range x.Rows {
			for _, a := range r.Argv {
				if strings.Contains(a, secret) {
					t.Errorf("pid %d's argv shows the secret: %q", r.Pid, r.Argv)
				}
			}
			if r.Role == verify.RoleWorker {
				vw.Worker = r.Pid
				for _, ev := range r.Vars {
					vw.States = append(vw.States, ev.State)
				}
			}
			if r.Role != verify.RoleAncestor {
				vw.Roles = append(vw.Roles, r.Role)
			}
		}
		if diff := cmp.Diff(names, x.Names); diff != "" {
			t.Errorf("Names (-want +got):\n%s", diff)
		}
		return vw
	}
	key := f.state.Digest("MOCK_LLM_KEY", secret)

	x, err := f.state.ExplainRecorded(ctx, v, l, names)
	if err != nil {
		t.Fatal(err)
	}
	want := view{
		Judgements: []verify.Judgement{{Name: "MOCK_LLM_KEY", Intended: key}, {Name: "UNSET_NAME"}},
		Worker:     rec.Worker.Pid,
		Roles:      []verify.Role{verify.RoleWorker},
		States:     []verify.VarState{verify.VarSet, verify.VarUnset},
	}
	if diff := cmp.Diff(want, seen(t, x)); diff != "" {
		t.Errorf("ExplainRecorded (-want +got):\n%s", diff)
	}

	x, err = f.state.ExplainPid(ctx, v, rec.Worker.Pid, names, map[string]string{"MOCK_LLM_KEY": "another value"})
	if err != nil {
		t.Fatal(err)
	}
	other := f.state.Digest("MOCK_LLM_KEY", "another value")
	var worker *verify.ExplainRow
	for i := range x.Rows {
		if x.Rows[i].Role == verify.RoleWorker {
			worker = &x.Rows[i]
		}
	}
	if worker == nil {
		t.Fatalf("ExplainPid: no worker row in %+v", x.Rows)
	}
	want.Judgements = []verify.Judgement{{Name: "MOCK_LLM_KEY", Intended: other, FirstDiffers: worker, WorkerDiffers: true}, {Name: "UNSET_NAME"}}
	if diff := cmp.Diff(want, seen(t, x)); diff != "" {
		t.Errorf("ExplainPid (-want +got):\n%s", diff)
	}

	_, err = f.state.ExplainRecorded(ctx, v, &schema.Launch{Name: "missing"}, names)
	var e *Error
	if !errors.As(err, &e) || e.Outcome != outcome.NotRecorded {
		t.Errorf("ExplainRecorded of no record: %v; want an *Error of Kind KindNotRecorded", err)
	}
}
