package statedir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// A process forked from the recorded worker without an exec since (a
// daemon's fork) is judged by the worker's exec-time evidence; one that
// exec'd since, or the worker's parent, is not.
func TestEvidenceOfForked(t *testing.T) {
	dir := t.TempDir()
	// bash (the worker) forks a subshell that never execs and writes its
	// pid, and runs sleep (an exec) in the background.
	// (The subshell blocks opening a fifo nobody writes.)
	script := `(echo $BASHPID > ` + filepath.Join(dir, "sub") + `; read -r _ < ` + filepath.Join(dir, "fifo") + `) & sleep 300 & echo $! > ` + filepath.Join(dir, "sleep") + `; wait`
	if err := exec.Command("mkfifo", filepath.Join(dir, "fifo")).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cmd := exec.Command("bash", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	t.Cleanup(func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL) // our own: the script's children
		}
		cmd.Process.Kill()
		cmd.Wait()
	})
	readPid := func(name string) int {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && p > 0 {
				return p
			}
		}
		t.Fatalf("no pid in %s", name)
		return 0
	}
	sub, sleep := readPid("sub"), readPid("sleep")
	pids = append(pids, sub, sleep)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		// (Until it has exec'd it is a fork of the worker: the same image.)
		if exe, _ := proc.Default.Exe(sleep); strings.HasSuffix(exe, "/sleep") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sleep did not exec")
		}
	}

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
