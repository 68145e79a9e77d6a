package launcher

import (
	"path/filepath"
	"testing"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// TestOneshot: a oneshot launch runs to completion; Start returns it
// verified on the block its exec received (the process is gone by then),
// Wait gives its exit status, and the record keeps oneshot and, once it
// is waited for, the status. A value changed between the launch and the
// worker's exec is exit 3 on that evidence.
func TestOneshot(t *testing.T) {
	f := newFixture(t)
	for _, code := range []int{0, 7} {
		l := &schema.Launch{Name: "job", Oneshot: true,
			Command: []string{filepath.Join(f.bin, "mock-srv"), "helper", "die", map[int]string{0: "0", 7: "7"}[code], "working"},
			Env:     map[string]string{"MOCK_LLM_KEY": secret}}
		la, err := f.start(t, l, false)
		if err != nil {
			t.Fatal(err)
		}
		if !la.Report.Verified || la.Report.EnvEvidence != verify.EvidenceExec {
			t.Errorf("exit %d: report verified %v, evidence %q", code, la.Report.Verified, la.Report.EnvEvidence)
		}
		if got := la.Wait().ExitCode(); got != code {
			t.Errorf("exit code %d, want %d", got, code)
		}
		rec, err := f.state.Load("job")
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Oneshot || rec.LastExit == nil || *rec.LastExit != code {
			t.Errorf("record: oneshot %v last_exit %v, want %d", rec.Oneshot, rec.LastExit, code)
		}
	}
	// sh sets another value, then execs the worker: judged on its exec.
	l := &schema.Launch{Name: "diverged", Oneshot: true,
		Command: []string{"sh", "-c", "MOCK_LLM_KEY=other exec true"},
		Env:     map[string]string{"MOCK_LLM_KEY": secret}}
	_, err := f.start(t, l, false)
	e := wantCode(t, err, outcome.Unproven, verify.KindEnvMismatch)
	if e.Report.EnvEvidence != verify.EvidenceExec {
		t.Errorf("evidence %q", e.Report.EnvEvidence)
	}
}
