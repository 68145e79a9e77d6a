//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// outputLine is what the chatty worker writes, over and over: a log line.
const outputLine = "2026-12-01T23:00:00Z INFO request served path=/v1/models status=200 bytes=1532 took=1.2ms"

// output compares a worker that writes 1 GB to stdout under `childproof
// run` (the tree's pipe read, every byte masked with 10 secrets in the
// set, then written to the state dir's log) with the same worker writing
// to a file directly: the target is at most 1.2x. Each path is
// paired with a direct run of its own, the two alternating (which goes
// first turns every repetition), and each pair gives a ratio: min/median/max
// of 5 pairs (quick: 256 MB, 3), in wall time and in CPU time (user +
// system of every process: run, its tree and, detached, the log relay;
// less moved by the machine's load than wall time).
//
// The paths: run in the foreground with run's stdout to a file (the
// worker's bytes are written twice, to the log and to run's stdout: the
// direct worker writes them once) and to /dev/null (the cost of masking
// at the source into the log, the direct file's peer), and run --detach
// (the relay process masks the pipe into the log), until the log holds
// it all.
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
	// The detached tree and its relay outlive run: as a subreaper the bench
	// becomes their parent and reaps them, with their CPU time.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return err
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	direct := filepath.Join(dir, "direct.log")
	runOut := filepath.Join(dir, "run.out")
	log := filepath.Join(b.work, "state", "logs", "chatty.log")
	// logDone waits until the log holds all the worker wrote (the relay of
	// a detached run is done with it).
	logDone := func() error {
		for end := time.Now().Add(5 * time.Minute); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
			if fi, err := os.Stat(log); err == nil && fi.Size() == size {
				return nil
			}
		}
		return fmt.Errorf("the log of run never held the %d bytes written", size)
	}
	// Each starts with no output file of an earlier run (its truncation
	// or unlink is not timed, for any of them): for run also the round's
	// log in the history, a hard link of the log, which the next run
	// would unlink (freeing 1 GB of page cache on its time).
	clean := func() {
		os.Remove(direct)
		os.Remove(runOut)
		os.Remove(log)
		old, _ := filepath.Glob(filepath.Join(b.work, "state", "history", "chatty", "*.log"))
		for _, f := range old {
			os.Remove(f)
		}
	}
	type measure struct{ wall, cpu time.Duration }
	fileRun := func() (measure, error) {
		clean()
		d, _, _, err := b.timeArgv(dir, cpEnv, []string{"sh", "-c", script + " > " + direct})
		return measure{d, b.lastCPU}, err
	}
	foreground := func(to string) func() (measure, error) {
		return func() (measure, error) {
			// run's stdout (the worker's lines it prints, and its report)
			// goes to a file or /dev/null, as the direct worker's does to
			// its file: into the bench's memory it cost more than the run
			// (4x against 1x measured by hand).
			clean()
			stdout, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return measure{}, err
			}
			d, _, err := b.timeArgvTo(dir, cpEnv, []string{b.bin, "run", "--no-lint", specPath}, stdout)
			stdout.Close()
			if err != nil {
				return measure{}, fmt.Errorf("run: %v", err)
			}
			if fi, err := os.Stat(to); to == runOut && (err != nil || fi.Size() < size) {
				return measure{}, fmt.Errorf("run printed less than the %d bytes the worker wrote", size)
			}
			m := measure{d, b.lastCPU}
			return m, logDone()
		}
	}
	detached := func() (measure, error) {
		clean()
		before := children()
		t := time.Now()
		if _, _, out, err := b.timeArgv(dir, cpEnv, []string{b.bin, "run", "--no-lint", "--detach", specPath}); err != nil {
			return measure{}, fmt.Errorf("run --detach: %v: %s", err, out)
		}
		cpu := b.lastCPU
		if err := logDone(); err != nil {
			return measure{}, err
		}
		d := time.Since(t)
		// Untimed: the detached launch ends before the next run of the
		// same name (which would refuse an alive one, exit 6).
		b.timeArgv(dir, cpEnv, []string{b.bin, "stop", "chatty"})
		orphans, err := reapOrphans(before, time.Minute)
		return measure{d, cpu + orphans}, err
	}
	paths := []struct {
		name, how string
		run       func() (measure, error)
		target    string
	}{
		{"fg-file", "run in the foreground, run's stdout to a file (the bytes written twice: the log and run's stdout)", foreground(runOut), "a chatty worker under run in the foreground at most 1.2x a file"},
		{"fg-null", "run in the foreground, run's stdout to /dev/null (masked at the source into the log)", foreground(os.DevNull), ""},
		{"detach", "run --detach (the log relay masks the pipe into the log), until the log holds it all", detached, "masking at the source: a chatty worker under run --detach at most 1.2x a file"},
	}
	wall := make([][]float64, len(paths))
	cpu := make([][]float64, len(paths))
	var viaFile, viaFileCPU []time.Duration
	viaPath := make([][]time.Duration, len(paths))
	viaPathCPU := make([][]time.Duration, len(paths))
	load := loadAverage()
	n := b.reps(5)
	for i := range n {
		for k, p := range paths {
			// A pair: the path and a direct run, which goes first turning
			// with every repetition and path.
			var a, f measure
			var err error
			if (i+k)%2 == 0 {
				if a, err = p.run(); err == nil {
					f, err = fileRun()
				}
			} else if f, err = fileRun(); err == nil {
				a, err = p.run()
			}
			if err != nil {
				return fmt.Errorf("%s: %v", p.name, err)
			}
			wall[k] = append(wall[k], float64(a.wall)/float64(f.wall))
			cpu[k] = append(cpu[k], float64(a.cpu)/float64(f.cpu))
			viaPath[k], viaPathCPU[k] = append(viaPath[k], a.wall), append(viaPathCPU[k], a.cpu)
			viaFile, viaFileCPU = append(viaFile, f.wall), append(viaFileCPU, f.cpu)
		}
	}
	load += " → " + loadAverage()
	clean()
	mb := size >> 20
	for k, p := range paths {
		lo, mid, hi := minMedMax(wall[k])
		clo, cmid, chi := minMedMax(cpu[k])
		b.add(fmt.Sprintf("output: a worker writing %d MB to stdout under %s / to a file directly", mb, p.how),
			fmt.Sprintf("%.2fx wall, %.2fx CPU", mid, cmid),
			fmt.Sprintf("pair ratios min/median/max: wall %.2f/%.2f/%.2f, CPU %.2f/%.2f/%.2f; medians %s (CPU %s) vs the file's %s (CPU %s); 10 secrets in the set, %d alternating pairs; load %s",
				lo, mid, hi, clo, cmid, chi, ms(median(viaPath[k])), ms(median(viaPathCPU[k])), ms(median(viaFile)), ms(median(viaFileCPU)), n, load))
		if p.target != "" {
			b.check(p.target, fmt.Sprintf("%.2fx wall (CPU %.2fx)", mid, cmid), mid <= 1.2, "")
		}
	}
	return nil
}

// reapOrphans waits, up to limit, for every child of the bench that is
// not in before (the processes of a detached launch, re-parented to the
// bench, a subreaper, when run exited) to end, reaps them and returns
// their CPU time (each one's own and its reaped children's).
func reapOrphans(before map[int]bool, limit time.Duration) (time.Duration, error) {
	var total time.Duration
	end := time.Now().Add(limit)
	tv := func(t unix.Timeval) time.Duration { return time.Duration(t.Nano()) }
	for {
		left := 0
		for pid := range children() {
			if before[pid] {
				continue
			}
			var ru unix.Rusage
			var ws unix.WaitStatus
			if got, err := unix.Wait4(pid, &ws, unix.WNOHANG, &ru); err == nil && got == pid {
				total += tv(ru.Utime) + tv(ru.Stime)
			} else {
				left++
			}
		}
		if left == 0 {
			return total, nil
		}
		if time.Now().After(end) {
			return total, fmt.Errorf("%d processes of the detached launch still there after %v", left, limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// children returns the bench's child processes (every thread's: an
// orphan is re-parented to one of them).
func children() map[int]bool {
	out := map[int]bool{}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out[pid] = true
			}
		}
	}
	return out
}
