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

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
)

// BenchmarkStartToReady measures what a test author waits for: from
// launcher.Start's call (what launchertest.Start wraps) to its return (mock-llm verified on its worker
// and answering /healthz), one launch at a time; the cleanup (stop) is
// outside the timing. Reported: the median, and the 90th percentile.
func BenchmarkStartToReady(b *testing.B) {
	startToReady(b, 1, nil)
}

// BenchmarkStartToReadyStreamed is BenchmarkStartToReady with the
// output followed (Options.Output, what launchertest.Start sets).
func BenchmarkStartToReadyStreamed(b *testing.B) {
	startToReady(b, 1, io.Discard)
}

// BenchmarkStartToReady12 is the same with 12 launches started at once
// (12 parallel subtests), each timed on its own.
func BenchmarkStartToReady12(b *testing.B) {
	startToReady(b, 12, nil)
}

// BenchmarkHandHelper is the hand-written helper a test author would
// write instead, beside which the rows above are read: exec mock-llm,
// poll /healthz every 5 ms until it answers 200, then SIGTERM and wait
// (no worker proof, no record, no output handling).
func BenchmarkHandHelper(b *testing.B) {
	var took []time.Duration
	cpu := cpuTime()
	n := 0
	for b.Loop() {
		port := launchertest.FreePort(b)
		began := time.Now()
		cmd := exec.Command(mockLLM, "--addr", fmt.Sprintf("127.0.0.1:%d", port))
		cmd.Env = append(os.Environ(), "MOCK_LLM_KEY=bench-key")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
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
		took = append(took, time.Since(began))
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		n++
	}
	report(b, took, cpuTime()-cpu, n)
}

// cpuTime is the CPU time this process used so far (user and system, all
// its threads; not its children's).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds the median and 90th percentile of took, and the CPU time
// this process spent per start+stop.
func report(b *testing.B, took []time.Duration, cpu time.Duration, n int) {
	slices.Sort(took)
	if len(took) > 0 {
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
		b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "ms-p90")
	}
	if n > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "cpu-ms/start+stop")
	}
}

func startToReady(b *testing.B, parallel int, out io.Writer) {
	var mu sync.Mutex
	var took []time.Duration
	cpu := cpuTime()
	n := 0
	for b.Loop() {
		n += parallel
		var wg sync.WaitGroup
		for range parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				port := launchertest.FreePort(b)
				began := time.Now()
				la, err := launcher.Start(context.Background(), mockSpec(port, "bench-key"), launcher.Options{StateDir: b.TempDir(), Output: out})
				d := time.Since(began)
				if err != nil {
					b.Error(err)
					return
				}
				la.Stop(context.Background())
				mu.Lock()
				took = append(took, d)
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	report(b, took, cpuTime()-cpu, n)
}
