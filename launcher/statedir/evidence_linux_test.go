package statedir

import (
	"os"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// A process forked from the recorded worker without an exec since (a
// daemon's fork) is judged by the worker's exec-time evidence; one that
// exec'd since, or the worker's parent, is not.
func TestEvidenceOfForked(t *testing.T) {
	cmd, sub, sleep := testsupport.ForkedSubshell(t)

	p := proc.Default
	fp, err := verify.TakeFingerprint(p, cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := p.Exe(cmd.Process.Pid)
	rec := &Record{Name: "w", Worker: fp, ExecEnv: map[string]string{"APP_MODE": "d1"}, ExecExe: exe, ExecArea: verify.ExecArea(st)}

	if ev := rec.EvidenceOf(p, cmd.Process.Pid); ev == nil || ev.Digests["APP_MODE"] != "d1" {
		t.Errorf("EvidenceOf(the worker) = %+v, want the record's", ev)
	}
	if ev := rec.EvidenceOf(p, sub); ev == nil || ev.Digests["APP_MODE"] != "d1" {
		t.Errorf("EvidenceOf(a subshell forked from the worker) = %+v, want the worker's", ev)
	}
	if ev := rec.EvidenceOf(p, sleep); ev != nil {
		t.Errorf("EvidenceOf(sleep, exec'd since its fork) = %+v, want nil", ev)
	}
	if ev := rec.EvidenceOf(p, os.Getpid()); ev != nil {
		t.Errorf("EvidenceOf(the test, started before the worker) = %+v, want nil", ev)
	}
	noArea := *rec
	noArea.ExecArea = ""
	if ev := noArea.EvidenceOf(p, sub); ev != nil {
		t.Errorf("EvidenceOf(subshell) with no area recorded = %+v, want nil", ev)
	}
}
