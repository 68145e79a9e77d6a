package launcher

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/childproof/childproof/spec"
)

// TestLaunchConcurrentUse: a Launch's methods called from several
// goroutines at once (Verify, Pid, Worker, Done and Wait while Stop runs,
// twice) are race-free under -race, and every Wait sees the one exit.
func TestLaunchConcurrentUse(t *testing.T) {
	t.Parallel()
	l := &spec.Launch{Name: "concurrent", Command: []string{"sh", "-c", "exec sleep 60"},
		Env: map[string]string{"CONCURRENT_KEY": "k"}, Require: []string{"CONCURRENT_KEY"}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	la, err := Start(ctx, l, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make(chan int, 3)
	for range 3 {
		wg.Go(func() {
			codes <- la.Wait().Code
		})
	}
	for range 4 {
		wg.Go(func() {
			_, _ = la.Verify(ctx)
			_ = la.Pid()
			_ = la.Worker()
			_ = la.Root()
			_ = la.Round()
		})
	}
	for range 2 {
		wg.Go(func() {
			if _, err := la.Stop(ctx); err != nil {
				t.Errorf("Stop: %v", err)
			}
		})
	}
	wg.Wait()
	<-la.Done()
	first := <-codes
	for range 2 {
		if c := <-codes; c != first {
			t.Errorf("Wait: %d and %d from the same launch", first, c)
		}
	}
}
