//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// outputLine is what the chatty worker writes, over and over: a log line.
const outputLine = "2026-12-01T23:00:00Z INFO request served path=/v1/models status=200 bytes=1532 took=1.2ms"

// output compares a worker that writes 1 GB to stdout under `childproof
// run` (the tree's pipe read, every byte masked with 10 secrets in the
// set, then written to the state dir's log) with the same worker writing
// to a file directly: the target is at most 1.2x. Wall time of
// each, interleaved, median of 3 (quick: 256 MB, 3).
func (b *bench) output() error {
	size := int64(1 << 30)
	if b.quick {
		size = 256 << 20
	}
	dir := filepath.Join(b.work, "output")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	script := fmt.Sprintf("yes %q | head -c %d", outputLine, size)
	var env, secret []string
	for i := range 10 {
		n := fmt.Sprintf("BENCH_SECRET_%d", i)
		env = append(env, fmt.Sprintf("%s = env(%q)", n, n))
		secret = append(secret, fmt.Sprintf("%q", n))
	}
	spec := fmt.Sprintf(`launch "chatty" {
  command = ["sh", "-c", %q]
  env     = {
    %s
  }
  secret  = [%s]
  log {
    keep = 0
  }
}
`, script, strings.Join(env, "\n    "), strings.Join(secret, ", "))
	specPath := filepath.Join(dir, "chatty.hcl")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		return err
	}
	cpEnv := b.cpEnv()
	for i := range 10 {
		cpEnv = append(cpEnv, fmt.Sprintf("BENCH_SECRET_%d=bench-secret-value-%d-%s", i, i, strings.Repeat("k", 20+i)))
	}
	direct := filepath.Join(dir, "direct.log")
	runOut := filepath.Join(dir, "run.out")
	log := filepath.Join(b.work, "state", "logs", "chatty.log")
	// logDone waits until the log holds all the worker wrote (the relay of
	// a detached run is done with it).
	logDone := func() error {
		for end := time.Now().Add(5 * time.Minute); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			if fi, err := os.Stat(log); err == nil && fi.Size() == size {
				return nil
			}
		}
		return fmt.Errorf("the log of run never held the %d bytes written", size)
	}
	var viaRun, viaDetach, viaFile []time.Duration
	for range b.reps(3) {
		// run's stdout (the worker's lines it prints, and its report) goes
		// to a file, as the direct worker's does: into the bench's memory
		// it cost more than the run (4x against 1x measured by hand).
		stdout, err := os.Create(runOut)
		if err != nil {
			return err
		}
		d, _, err := b.timeArgvTo(dir, cpEnv, []string{b.bin, "run", "--no-lint", specPath}, stdout)
		stdout.Close()
		if err != nil {
			return fmt.Errorf("run: %v", err)
		}
		if err := logDone(); err != nil {
			return err
		}
		viaRun = append(viaRun, d)
		t := time.Now()
		if _, _, out, err := b.timeArgv(dir, cpEnv, []string{b.bin, "run", "--no-lint", "--detach", specPath}); err != nil {
			return fmt.Errorf("run --detach: %v: %s", err, out)
		}
		if err := logDone(); err != nil {
			return err
		}
		viaDetach = append(viaDetach, time.Since(t))
		d, _, _, err = b.timeArgv(dir, cpEnv, []string{"sh", "-c", script + " > " + direct})
		if err != nil {
			return err
		}
		viaFile = append(viaFile, d)
	}
	os.Remove(direct)
	os.Remove(runOut)
	f := median(viaFile)
	mb := size >> 20
	for _, m := range []struct {
		how  string
		runs []time.Duration
	}{{"run (foreground: the pipe masked by run, the log's lines also printed by it to its stdout, a file)", viaRun}, {"run --detach (the pipe masked by the log relay), until the log holds it all", viaDetach}} {
		r := median(m.runs)
		ratio := float64(r) / float64(f)
		b.add(fmt.Sprintf("output: a worker writing %d MB to stdout under %s / to a file directly", mb, m.how),
			fmt.Sprintf("%.2fx", ratio), fmt.Sprintf("%s vs %s, 10 secrets in the set, wall time, interleaved, median of %d; load %s", ms(r), ms(f), len(m.runs), loadAverage()))
		if m.runs[0] == viaDetach[0] {
			b.check("masking at the source: a chatty worker under run --detach at most 1.2x a file", fmt.Sprintf("%.2fx", ratio), ratio <= 1.2, "")
		} else {
			b.check("a chatty worker under run in the foreground at most 1.2x a file", fmt.Sprintf("%.2fx", ratio), ratio <= 1.2, "the foreground also prints every line it follows in the log")
		}
	}
	return nil
}
