//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// libraryKinds are examples/library's benchmarks this step runs, in the
// order of the first round (the order rotates round by round).
var libraryKinds = []string{"BenchmarkStartToReady", "BenchmarkHandHelper", "BenchmarkStartToReady10", "BenchmarkHandHelper10"}

// librarySamples is what the runs of one benchmark gave: every start's
// time, and each run's CPU of the test process per start+stop.
type librarySamples struct {
	starts []time.Duration
	cpu    []time.Duration
}

// library runs the Go library's start-to-ready benchmarks
// (examples/library: launcher.Start to a verified, answering mock-llm and
// its Stop) beside the hand-written helper (exec, poll /healthz every
// 5 ms, SIGTERM), one at a time and 10 at once, in one test binary run by
// run, the order rotating, so that a busy machine slows both alike
// (issue 38 item 5).
func (b *bench) library() error {
	test := filepath.Join(b.work, "library.test")
	if out, err := exec.Command("go", "test", "-c", "-o", test, "./examples/library").CombinedOutput(); err != nil {
		return fmt.Errorf("building examples/library's test binary: %v: %s", err, firstLine(out))
	}
	samples := filepath.Join(b.work, "library-samples")
	got := map[string]*librarySamples{}
	var cpuPairs []float64 // per round: launcher's CPU per start+stop over the hand helper's
	load0 := loadAverage()
	for i := range b.reps(16) {
		round := map[string]time.Duration{}
		for k := range libraryKinds {
			name := libraryKinds[(i+k)%len(libraryKinds)]
			n := 10 // starts one at a time per run
			if strings.HasSuffix(name, "10") {
				n = 2 // rounds of 10 at once per run
			}
			os.Remove(samples)
			cmd := exec.Command(test, "-test.run", "^$", "-test.bench", "^"+name+"$", "-test.benchtime", fmt.Sprintf("%dx", n))
			cmd.Dir = "examples/library"
			cmd.Env = append(os.Environ(), "CHILDPROOF_MOCK_LLM="+b.server, "CHILDPROOF_BENCH_SAMPLES="+samples)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v: %s", name, err, lastLines(out, 5))
			}
			s, err := readLibrarySamples(samples, name)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if got[name] == nil {
				got[name] = &librarySamples{}
			}
			got[name].starts = append(got[name].starts, s.starts...)
			got[name].cpu = append(got[name].cpu, s.cpu...)
			if len(s.cpu) > 0 {
				round[name] = s.cpu[0]
			}
		}
		if h := round["BenchmarkHandHelper"]; h > 0 && round["BenchmarkStartToReady"] > 0 {
			cpuPairs = append(cpuPairs, float64(round["BenchmarkStartToReady"])/float64(h))
		}
	}
	load := fmt.Sprintf("load average %s at the start, %s at the end", load0, loadAverage())
	one, hand, ten, hand10 := got["BenchmarkStartToReady"], got["BenchmarkHandHelper"], got["BenchmarkStartToReady10"], got["BenchmarkHandHelper10"]
	if one == nil || hand == nil || ten == nil || hand10 == nil || len(one.starts) == 0 || len(hand.starts) == 0 || len(ten.starts) == 0 || len(hand10.starts) == 0 {
		return fmt.Errorf("a benchmark reported no starts")
	}
	row := func(what string, s *librarySamples) {
		b.add("library: start to ready, "+what, ms(median(s.starts)), fmt.Sprintf("p95 %s over %d starts; test-process CPU per start+stop %s (median of %d runs); %s",
			ms(p95(s.starts)), len(s.starts), ms(median(s.cpu)), len(s.cpu), load))
	}
	row("launcher.Start (+ Stop), one at a time", one)
	row("hand helper (exec, poll /healthz every 5 ms, SIGTERM), one at a time", hand)
	row("launcher.Start (+ Stop), 10 at once", ten)
	row("hand helper, 10 at once", hand10)
	cr, cs := spread(cpuPairs)
	b.add("library: test-process CPU per start+stop, launcher over the hand helper", cr, cs+" run by run (one at a time, the two in turn)")
	cpu := median(one.cpu)
	b.check("library: test-process CPU per launcher.Start + Stop ≤ 3 ms (one at a time, make bench's examples/library run)", ms(cpu), cpu <= 3*time.Millisecond,
		fmt.Sprintf("the hand helper's is %s in the same run; %s; see docs/library.md", ms(median(hand.cpu)), load))
	// The 3 ms was asked beside its hand helper's 1.2 ms: 2.5×
	// the hand helper's, a reading a slower machine (whose hand helper
	// alone costs more than 3 ms) can be held to; both are checked.
	b.check("library: test-process CPU per launcher.Start + Stop ≤ 2.5× the hand helper's (the issue's 3 ms beside its 1.2 ms; median of the run-by-run pairs)", cr, medianOf(cpuPairs) > 0 && medianOf(cpuPairs) <= 2.5,
		fmt.Sprintf("%s run by run; %s; see docs/library.md", cs, load))
	ratio := float64(p95(ten.starts)) / float64(p95(hand10.starts))
	b.check("library: 10 launcher.Starts at once, p95 start to ready within 1.5× the hand helper's (same run)", fmt.Sprintf("%.2f× (%s against %s)", ratio, ms(p95(ten.starts)), ms(p95(hand10.starts))), ratio <= 1.5,
		fmt.Sprintf("%s; see docs/library.md", load))
	return nil
}

// readLibrarySamples reads the "NAME start MS" and "NAME cpu MS" lines
// examples/library's benchmarks append to path.
func readLibrarySamples(path, name string) (*librarySamples, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &librarySamples{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 || fs[0] != name {
			continue
		}
		v, err := strconv.ParseFloat(fs[2], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
		}
		d := time.Duration(v * float64(time.Millisecond))
		switch fs[1] {
		case "start":
			s.starts = append(s.starts, d)
		case "cpu":
			s.cpu = append(s.cpu, d)
		}
	}
	return s, sc.Err()
}

// lastLines is the last n lines of out, joined by " | ".
func lastLines(out []byte, n int) string {
	ls := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], " | ")
}
