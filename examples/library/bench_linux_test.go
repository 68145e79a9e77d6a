package library_test

import (
	"context"
	"io"
	"slices"
	"sync"
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

func startToReady(b *testing.B, parallel int, out io.Writer) {
	var mu sync.Mutex
	var took []time.Duration
	for b.Loop() {
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
	slices.Sort(took)
	if len(took) > 0 {
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
		b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "ms-p90")
	}
}
