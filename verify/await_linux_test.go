package verify

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/schema"
)

// sleeper starts a process that lives until the test kills it.
func sleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "600")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Process.Kill()
		c.Wait()
	})
	return c
}

// goneStarted is the pid of a process that has exited and been reaped.
func goneStarted(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

func TestAwait(t *testing.T) {
	far := time.Now().Add(time.Hour) // the tests end Await otherwise
	t.Run("once", func(t *testing.T) {
		c := sleeper(t)
		masked := 0
		r, err := (&Verifier{}).Await(context.Background(), Check{Name: "x", Root: c.Process.Pid, WorkerSelector: WorkerSelector{Deepest: true}},
			AwaitOptions{Mask: func(*Report) { masked++ }, Waiting: func(*Report) { t.Error("Waiting called with no time to wait") }})
		if err != nil || !r.Verified || masked != 1 {
			t.Errorf("Await = %+v, %v; masked %d times, want verified, once", r, err, masked)
		}
	})
	t.Run("waits until ctx ends, saying why once", func(t *testing.T) {
		c := sleeper(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		waiting := 0
		r, err := (&Verifier{}).Await(ctx, Check{Name: "x", Root: c.Process.Pid, WorkerSelector: WorkerSelector{Deepest: true}, Expect: Expect{Require: []string{"CHILDPROOF_TEST_NEVER_SET"}}},
			AwaitOptions{Until: far, Waiting: func(r *Report) {
				waiting++
				if !r.Has(KindEnvMissing) {
					t.Errorf("Waiting's report: %+v", r)
				}
				cancel()
			}})
		if err != nil || r.Verified || !r.Has(KindEnvMissing) || waiting != 1 {
			t.Errorf("Await = %+v, %v; Waiting called %d times, want env-missing, once", r, err, waiting)
		}
	})
	t.Run("a definite env failure is not retried", func(t *testing.T) {
		// The worker is certainly the program (its comm is the check's):
		// its environment was fixed at its exec, so a missing name is
		// final; Waiting is never called.
		c := sleeper(t)
		r, err := (&Verifier{}).Await(context.Background(), Check{Name: "x", Root: c.Process.Pid, WorkerSelector: WorkerSelector{Comm: "sleep"}, Expect: Expect{Require: []string{"CHILDPROOF_TEST_NEVER_SET"}}},
			AwaitOptions{Until: far, Waiting: func(*Report) { t.Error("a definite env failure was retried") }})
		if err != nil || r.Verified || !r.Has(KindEnvMissing) {
			t.Errorf("Await = %+v, %v; want env-missing at once", r, err)
		}
	})
	t.Run("stops when the process exits", func(t *testing.T) {
		c := sleeper(t)
		r, err := (&Verifier{}).Await(context.Background(), Check{Name: "x", Root: c.Process.Pid, WorkerSelector: WorkerSelector{Deepest: true}, Expect: Expect{Require: []string{"CHILDPROOF_TEST_NEVER_SET"}}},
			AwaitOptions{Until: far, Waiting: func(*Report) {
				c.Process.Kill()
				c.Wait()
			}})
		if err != nil || r == nil || r.Verified {
			t.Errorf("Await = %+v, %v; want the last, failed report", r, err)
		}
	})
	t.Run("gone, port held by a stranger", func(t *testing.T) {
		port, err := testsupport.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		pid := goneStarted(t)
		_, err = (&Verifier{}).Await(context.Background(), Check{Name: "x", Root: pid, Ports: []schema.Port{{Number: port}}}, AwaitOptions{Until: far})
		var fe *ForeignPortError
		if !errors.As(err, &fe) || fe.Port != port || fe.Pid != pid || fe.Report != nil || fe.Holder == "" {
			t.Errorf("err = %#v, want a *ForeignPortError for port %d", err, port)
		}
	})
	t.Run("gone, no port held", func(t *testing.T) {
		pid := goneStarted(t)
		r, err := (&Verifier{}).Await(context.Background(), Check{Name: "x", Root: pid}, AwaitOptions{Until: far})
		var fe *ForeignPortError
		if err == nil || errors.As(err, &fe) || r != nil {
			t.Errorf("Await = %v, %v; want no report and a no-such-process error", r, err)
		}
	})
}
