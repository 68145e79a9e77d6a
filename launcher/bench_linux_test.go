package launcher

import (
	"context"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/probe"
	"github.com/childproof/childproof/schema"
	"github.com/childproof/childproof/verify"
)

// BenchmarkVerify is the hot path of verify: worker fingerprint, environ,
// socket table, fds, chain and a readiness connect on a running launch.
func BenchmarkVerify(b *testing.B) {
	f := benchFixture(b)
	l := f.spec("bench-verify")
	la, err := Start(context.Background(), l, Options{State: f.state})
	if err != nil {
		b.Fatal(err)
	}
	defer la.Stop(context.Background())
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if r, err := la.Verify(ctx); err != nil || !r.Verified {
			b.Fatal(r, err)
		}
	}
}

// BenchmarkVerifyNoReady is the same proof without the readiness connect.
func BenchmarkVerifyNoReady(b *testing.B) {
	f := benchFixture(b)
	la, err := Start(context.Background(), f.spec("bench-noready"), Options{State: f.state})
	if err != nil {
		b.Fatal(err)
	}
	defer la.Stop(context.Background())
	v := &verify.Verifier{State: f.state}
	c := verify.CheckFromSpec(la.Spec, la.Env.Expect())
	c.Root, c.Worker, c.NoReady = la.Root().Pid, la.Worker().Pid, true
	ctx := context.Background()
	for b.Loop() {
		if r := v.Verify(ctx, c); !r.Verified {
			b.Fatal(r.Problems)
		}
	}
}

// BenchmarkStartVerified measures Start (detached) until the worker is
// verified ready; the stop is not timed.
func BenchmarkStartVerified(b *testing.B) {
	f := benchFixture(b)
	l := f.spec("bench-start")
	l.Ready = schema.Ready{} // a TCP connect after the socket table says the worker owns the port
	for b.Loop() {
		la, err := Start(context.Background(), l, Options{State: f.state, Detach: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		la.Stop(context.Background())
		b.StartTimer()
	}
}

// BenchmarkStartVerifiedNoCapture is BenchmarkStartVerified launched
// untraced (Options.NoExecCapture): the difference is what exec-time env
// capture costs on the launch path.
func BenchmarkStartVerifiedNoCapture(b *testing.B) {
	f := benchFixture(b)
	l := f.spec("bench-start-nocapture")
	l.Ready = schema.Ready{}
	for b.Loop() {
		la, err := Start(context.Background(), l, Options{State: f.state, Detach: true, Tracking: Tracking{NoExecCapture: true}})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		la.Stop(context.Background())
		b.StartTimer()
	}
}

func benchFixture(b *testing.B) *fixture {
	st, err := OpenState(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return &fixture{bin: helperBin(b, "mock-srv"), state: st, port: freePort(b)}
}

// BenchmarkBareForkExecConnect is the floor StartVerified is compared with:
// fork/exec the same server and poll connect() every millisecond.
func BenchmarkBareForkExecConnect(b *testing.B) {
	f := benchFixture(b)
	l := f.spec("bare")
	addr := probe.ConnectAddr(l.Ports[0])
	for b.Loop() {
		cmd := exec.Command(l.Command[0], l.Command[1:]...)
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		for {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				c.Close()
				break
			}
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		cmd.Process.Kill()
		cmd.Wait()
		b.StartTimer()
	}
}

// BenchmarkVerifyPidCrowded is verify --pid's work with 2,000 unrelated
// processes on the machine: the socket table is filtered in the kernel and
// only the tree's fds are read, so the crowd costs nothing.
func BenchmarkVerifyPidCrowded(b *testing.B) {
	if testing.Short() {
		b.Skip("starts 2,000 processes")
	}
	f := benchFixture(b)
	la, err := Start(context.Background(), f.spec("bench-crowd"), Options{State: f.state})
	if err != nil {
		b.Fatal(err)
	}
	defer la.Stop(context.Background())
	var crowd []*exec.Cmd
	defer func() {
		for _, c := range crowd {
			c.Process.Kill()
			c.Wait()
		}
	}()
	for range 2000 {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		crowd = append(crowd, c)
	}
	v := &verify.Verifier{State: f.state}
	c := verify.Check{
		Name:           "pid",
		Root:           la.Root().Pid,
		WorkerSelector: verify.WorkerSelector{Deepest: true},
		AnyAddress:     true,
		Expect:         verify.Expect{Require: []string{"MOCK_LLM_KEY"}},
		Ports:          la.Spec.Ports,
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if r := v.Verify(ctx, c); !r.Verified {
			b.Fatal(r.Problems)
		}
	}
}
