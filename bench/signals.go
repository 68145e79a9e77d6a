//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// signals measures what recording signal senders costs (the exec-capture
// tracer's signal-delivery stops, issue 23): run --detach of a dispatch
// that sends itself 200 SIGUSR1 before it execs the server, against the
// same dispatch looping without signals, and the signalling one without
// exec capture (no tracer), interleaved round by round.
func (b *bench) signals() error {
	if _, err := os.Stat(b.server); err != nil {
		return fmt.Errorf("example server not built: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	dir := filepath.Join(b.work, "signals")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name, body string) error {
		return os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755)
	}
	loop := func(kill string) string {
		return fmt.Sprintf("#!/usr/bin/env bash\ntrap : USR1\nfor ((i = 0; i < 200; i++)); do %s; done\nexec %q --addr 127.0.0.1:%d\n", kill, b.server, port)
	}
	spec := func(name, script string) string {
		return fmt.Sprintf(`launch %q {
  dispatch = [%q]
  env      = { MOCK_LLM_KEY = "bench-key" }
  require  = ["MOCK_LLM_KEY"]
  worker {
    comm = "mock-llm"
  }
  port "http" {
    number = %d
  }
}
`, name, script, port)
	}
	for _, f := range []struct{ name, body string }{
		{"quiet.sh", loop(":")}, {"noisy.sh", loop("kill -USR1 $$")},
		{"quiet.hcl", spec("quiet", "quiet.sh")}, {"noisy.hcl", spec("noisy", "noisy.sh")},
	} {
		if err := write(f.name, f.body); err != nil {
			return err
		}
	}
	run := func(name string, off bool) (time.Duration, error) {
		t := time.Now()
		c := exec.Command(b.bin, "run", "--detach", "--format", "json", filepath.Join(dir, name+".hcl"))
		c.Env = b.cpEnv()
		if off {
			c.Env = append(c.Env, "CHILDPROOF_NO_EXEC_CAPTURE=1")
		}
		out, err := c.CombinedOutput()
		d := time.Since(t)
		if err != nil {
			return 0, fmt.Errorf("run %s: %v: %s", name, err, firstLine(out))
		}
		stop := exec.Command(b.bin, "stop", name)
		stop.Env = b.cpEnv()
		if out, err := stop.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("stop %s: %v: %s", name, err, firstLine(out))
		}
		waitPortFree(port)
		return d, nil
	}
	var quiet, noisy, untraced []time.Duration
	for i := range b.reps(20) {
		for k := range 3 {
			var d time.Duration
			var err error
			switch (i + k) % 3 {
			case 0:
				d, err = run("quiet", false)
				quiet = append(quiet, d)
			case 1:
				d, err = run("noisy", false)
				noisy = append(noisy, d)
			case 2:
				d, err = run("noisy", true)
				untraced = append(untraced, d)
			}
			if err != nil {
				return err
			}
		}
	}
	q, n, u := median(quiet), median(noisy), median(untraced)
	b.add("run --detach, dispatch looping 200 times, no signal", ms(q), "the baseline of the next row: exec capture on (the default), nothing delivered")
	b.add("run --detach, dispatch sending itself 200 SIGUSR1", ms(n), fmt.Sprintf("each delivery stops for the exec-capture tracer, which records the first 32 senders (PTRACE_GETSIGINFO, comm): %+.2f ms, %.1f µs a signal; a launch that receives none pays nothing", float64(n-q)/1e6, float64(n-q)/1e3/200))
	b.add("run --detach, the same 200 SIGUSR1, exec capture off", ms(u), "CHILDPROOF_NO_EXEC_CAPTURE=1: no tracer, no signal-delivery stops, no senders recorded")
	return nil
}
