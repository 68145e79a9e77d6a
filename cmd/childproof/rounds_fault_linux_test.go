package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFaultRoundsKilled: SIGKILL of run/relaunch at a sweep of moments,
// from right after its start to after it verified. After each, the round
// history reads back whole (every round file parses, numbered 1…k without a
// gap), and the next round is numbered after it; a round cut short reads
// "launching", never a torn file.
func TestFaultRoundsKilled(t *testing.T) {
	t.Parallel() // its dirs, state dir, launch name and port are its own
	e := newFaultEnv(t)
	name := uniqueName("fault-rounds")
	spec, _, pidfile := e.spec(name)
	arg := spec + ":" + name
	var workers []int
	defer func() {
		// Trees of launches killed before they were recorded: ours. A
		// worker whose launcher was killed before it wrote the pidfile is
		// known only by its environment, which names this test's own
		// temporary pidfile: nobody else's process has it.
		workers = append(workers, ownWorkers(pidfile)...)
		for _, pid := range workers {
			if fd, err := unix.PidfdOpen(pid, 0); err == nil {
				unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
				unix.Close(fd)
			}
		}
	}()
	if _, stderr, code := e.run("run", "--detach", "--set", "R=0", arg); code != 0 {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	// 0 to 152 ms: before the round is numbered, while it launches,
	// while the previous round is stopped, after it verified.
	var delays []time.Duration
	for d := time.Duration(0); d <= 152*time.Millisecond; d += 8 * time.Millisecond {
		delays = append(delays, d)
	}
	for i, d := range delays {
		args := []string{"relaunch", "--detach", "--set", "R=" + strconv.Itoa(i+1), name}
		if l, ok := e.ps(true)[name]; !ok || l.Pending || l.Status != "alive" {
			// The previous kill left no verified launch: start afresh.
			e.run("stop", name)
			args = []string{"run", "--detach", "--set", "R=" + strconv.Itoa(i+1), arg}
		}
		c := e.command(args...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(d)
		c.Process.Kill()
		c.Wait()
		if b, err := os.ReadFile(pidfile); err == nil {
			if pid, _ := strconv.Atoi(string(b)); pid > 0 {
				workers = append(workers, pid)
			}
		}
		stdout, stderr, code := e.run("history", "--format", "json", name)
		if code != 0 || stderr != "" {
			t.Fatalf("after a kill at %v: history: exit %d: %s", d, code, stderr)
		}
		var h struct {
			Rounds []struct {
				Round   int    `json:"round"`
				Outcome string `json:"outcome"`
			} `json:"rounds"`
		}
		if err := json.Unmarshal([]byte(stdout), &h); err != nil {
			t.Fatalf("after a kill at %v: history JSON: %v", d, err)
		}
		for j, r := range h.Rounds {
			if r.Round != j+1 {
				t.Fatalf("after a kill at %v: rounds %v are not numbered 1…%d", d, h.Rounds, len(h.Rounds))
			}
			switch r.Outcome {
			case "launching", "interrupted", "verified", "failed", "refused":
			default:
				t.Errorf("round %d: outcome %q", r.Round, r.Outcome)
			}
		}
	}
	e.run("stop", name)
	out, stderr, code := e.run("history", name)
	if code != 0 || !strings.Contains(out, "ROUND") {
		t.Fatalf("history: exit %d %s", code, stderr)
	}
	t.Logf("history after %d kills:\n%s", len(delays), out)
}

// ownWorkers lists the processes whose environment sets
// CHILDPROOF_FAULT_PIDFILE to pidfile (a path under the test's own
// temporary directory): workers this test's launches started.
func ownWorkers(pidfile string) []int {
	want := []byte("\x00CHILDPROOF_FAULT_PIDFILE=" + pidfile + "\x00")
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, en := range ents {
		pid, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + en.Name() + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, b...), want) {
			pids = append(pids, pid)
		}
	}
	return pids
}
