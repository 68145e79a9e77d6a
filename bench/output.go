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
// each, alternating, the ratio of each repetition's run to its file, min/median/max
// of 5 (quick: 256 MB, 3).
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
	var ratioRun, ratioDetach, cpuRun []float64
	load := loadAverage()
	for i := range b.reps(5) {
		// The three alternate, and their order turns each repetition (the
		// file first, then run first...), so that a load that rises or
		// falls during one repetition does not favour one of them.
		var dRun, dDetach, dFile, cRun, cFile time.Duration
		// Each starts with no output file of an earlier repetition (its
		// truncation or unlink is not timed, for any of them).
		clean := func() { os.Remove(direct); os.Remove(runOut); os.Remove(log) }
		steps := []func() error{
			func() error {
				// run's stdout (the worker's lines it prints, and its report)
				// goes to a file, as the direct worker's does: into the
				// bench's memory it cost more than the run (4x against 1x
				// measured by hand).
				clean()
				stdout, err := os.Create(runOut)
				if err != nil {
					return err
				}
				d, _, err := b.timeArgvTo(dir, cpEnv, []string{b.bin, "run", "--no-lint", specPath}, stdout)
				stdout.Close()
				if err != nil {
					return fmt.Errorf("run: %v", err)
				}
				if fi, err := os.Stat(runOut); err != nil || fi.Size() < size {
					return fmt.Errorf("run printed less than the %d bytes the worker wrote", size)
				}
				dRun, cRun = d, b.lastCPU
				return logDone()
			},
			func() error {
				clean()
				t := time.Now()
				if _, _, out, err := b.timeArgv(dir, cpEnv, []string{b.bin, "run", "--no-lint", "--detach", specPath}); err != nil {
					return fmt.Errorf("run --detach: %v: %s", err, out)
				}
				if err := logDone(); err != nil {
					return err
				}
				dDetach = time.Since(t)
				// Untimed: the detached launch ends before the next run of
				// the same name (which would refuse an alive one, exit 6).
				b.timeArgv(dir, cpEnv, []string{b.bin, "stop", "chatty"})
				return nil
			},
			func() error {
				clean()
				d, _, _, err := b.timeArgv(dir, cpEnv, []string{"sh", "-c", script + " > " + direct})
				dFile, cFile = d, b.lastCPU
				return err
			},
		}
		for k := range steps {
			if err := steps[(i+k)%len(steps)](); err != nil {
				return err
			}
		}
		viaRun, viaDetach, viaFile = append(viaRun, dRun), append(viaDetach, dDetach), append(viaFile, dFile)
		ratioRun = append(ratioRun, float64(dRun)/float64(dFile))
		ratioDetach = append(ratioDetach, float64(dDetach)/float64(dFile))
		cpuRun = append(cpuRun, float64(cRun)/float64(cFile))
	}
	load += " → " + loadAverage()
	os.Remove(direct)
	os.Remove(runOut)
	lo, mid, hi := minMedMax(cpuRun)
	b.add(fmt.Sprintf("output: CPU time (user + system, the whole tree) of a worker writing %d MB under run in the foreground / to a file directly", size>>20),
		fmt.Sprintf("%.2fx", mid), fmt.Sprintf("ratio of each repetition min/median/max %.2f/%.2f/%.2f: less moved by the load than wall time", lo, mid, hi))
	f := median(viaFile)
	mb := size >> 20
	for _, m := range []struct {
		how    string
		runs   []time.Duration
		ratios []float64
		detach bool
	}{{"run (foreground: the pipe masked by run, once, into the log and run's stdout, a file)", viaRun, ratioRun, false},
		{"run --detach (the pipe masked by the log relay), until the log holds it all", viaDetach, ratioDetach, true}} {
		r := median(m.runs)
		lo, mid, hi := minMedMax(m.ratios)
		b.add(fmt.Sprintf("output: a worker writing %d MB to stdout under %s / to a file directly", mb, m.how),
			fmt.Sprintf("%.2fx", mid), fmt.Sprintf("ratio of each repetition min/median/max %.2f/%.2f/%.2f; %s vs %s (medians), 10 secrets in the set, wall time, %d repetitions alternating; load %s",
				lo, mid, hi, ms(r), ms(f), len(m.runs), load))
		if m.detach {
			b.check("masking at the source: a chatty worker under run --detach at most 1.2x a file", fmt.Sprintf("%.2fx", mid), mid <= 1.2, "")
		} else {
			b.check("a chatty worker under run in the foreground at most 1.2x a file", fmt.Sprintf("%.2fx", mid), mid <= 1.2, "")
		}
	}
	return nil
}
