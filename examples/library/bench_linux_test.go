package library_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
)

// BenchmarkStartToReady measures what a test author waits for: from
// launcher.Start's call (what launchertest.Start wraps) to its return (mock-llm verified on its worker
// and answering /healthz), one launch at a time; the cleanup (stop) is
// outside the timing. Each start gets the state dir launchertest.Start
// would give it (launchertest.StateDir). Reported: the median, the 90th
// and 95th percentiles, and the test process's CPU per start+stop.
func BenchmarkStartToReady(b *testing.B) {
	startToReady(b, 1, nil)
}

// BenchmarkStartToReadyStreamed is BenchmarkStartToReady with the
// output followed (Options.Output, what launchertest.Start sets).
func BenchmarkStartToReadyStreamed(b *testing.B) {
	startToReady(b, 1, io.Discard)
}

// BenchmarkStartToReady10 is the same with 10 launches started at once
// (10 goroutines), each timed on its own.
func BenchmarkStartToReady10(b *testing.B) {
	startToReady(b, 10, nil)
}

// BenchmarkHandHelper is the hand-written helper a test author would
// write instead, beside which the rows above are read: exec mock-llm,
// poll /healthz every 5 ms until it answers 200, then SIGTERM and wait
// (no worker proof, no record, no output handling).
func BenchmarkHandHelper(b *testing.B) {
	handHelper(b, 1)
}

// BenchmarkHandHelper10 is the hand helper with 10 servers started at
// once, beside BenchmarkStartToReady10.
func BenchmarkHandHelper10(b *testing.B) {
	handHelper(b, 10)
}

func handHelper(b *testing.B, parallel int) {
	timed(b, parallel, func() time.Duration {
		port := launchertest.FreePort(b)
		began := time.Now()
		cmd := exec.Command(mockLLM, "--addr", fmt.Sprintf("127.0.0.1:%d", port))
		cmd.Env = append(os.Environ(), "MOCK_LLM_KEY=bench-key")
		if err := cmd.Start(); err != nil {
			b.Error(err)
			return -1
		}
		url := fmt.Sprintf("http://127.0.0.1:%d/healthz", port)
		for {
			if resp, err := http.Get(url); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		d := time.Since(began)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		testsupport.ReleasePort(port) // as the test's cleanup would
		return d
	})
}

// cpuTime is the CPU time this process used so far (user and system, all
// its threads; not its children's).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// switches is the number of context switches this process's threads
// made so far (voluntary and not): on a virtual machine each costs
// microseconds of CPU, and they are steadier than CPU time under load.
func switches() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return int64(ru.Nvcsw) + int64(ru.Nivcsw)
}

// report adds the median, 90th and 95th percentile of took, and the CPU
// time this process spent per start+stop. With $CHILDPROOF_BENCH_SAMPLES
// set (make bench sets it), each start's time in ms and then the CPU
// per start+stop are appended to that file, one "NAME start MS" or
// "NAME cpu MS" line each, for pooling over runs.
func report(b *testing.B, took []time.Duration, cpu time.Duration, sw int64, n int) {
	slices.Sort(took)
	if len(took) > 0 {
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
		b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "ms-p90")
		b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "ms-p95")
	}
	if n > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "cpu-ms/start+stop")
		b.ReportMetric(float64(sw)/float64(n), "ctxsw/start+stop")
	}
	if path := os.Getenv("CHILDPROOF_BENCH_SAMPLES"); path != "" && n > 0 {
		var lines []byte
		for _, d := range took {
			lines = fmt.Appendf(lines, "%s start %.3f\n", b.Name(), float64(d.Microseconds())/1000)
		}
		lines = fmt.Appendf(lines, "%s cpu %.3f\n", b.Name(), float64(cpu.Microseconds())/1000/float64(n))
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(lines); err != nil {
			b.Fatal(err)
		}
	}
}

func startToReady(b *testing.B, parallel int, out io.Writer) {
	timed(b, parallel, func() time.Duration {
		port := launchertest.FreePort(b)
		began := time.Now()
		la, err := launcher.Start(context.Background(), mockSpec(port, "bench-key"), launcher.Options{StateDir: launchertest.StateDir(b), Output: out})
		d := time.Since(began)
		if err != nil {
			b.Error(err)
			return -1
		}
		la.Stop(context.Background())
		testsupport.ReleasePort(port) // as the test's cleanup would
		return d
	})
}

// timed runs one start+stop (which returns its start-to-ready time, or
// a negative one when it failed) parallel at once per loop and reports.
func timed(b *testing.B, parallel int, one func() time.Duration) {
	var mu sync.Mutex
	var took []time.Duration
	cpu, sw := cpuTime(), switches()
	n := 0
	for b.Loop() {
		n += parallel
		var wg sync.WaitGroup
		for range parallel {
			wg.Go(func() {
				if d := one(); d >= 0 {
					mu.Lock()
					took = append(took, d)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	report(b, took, cpuTime()-cpu, switches()-sw, n)
}
