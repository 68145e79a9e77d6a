//go:build linux

package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// wait measures readiness (issue 37): the lag from the moment a server
// is ready to the moment childproof run --detach returns verified, for
// each kind (tcp, http, exec, log), side by side with a floor (a 1 ms
// poll of the same check) and a hand-written sleep 0.1 loop; and
// childproof's own CPU time while it waits for a worker that never
// listens (nothing bound) and while another member holds the port in a
// tree that keeps changing (so the wait is not cut short).
func (b *bench) wait() error {
	srv := filepath.Join(b.work, "readyserver")
	if out, err := exec.Command("go", "build", "-o", srv, "./bench/readyserver").CombinedOutput(); err != nil {
		return fmt.Errorf("building bench/readyserver: %v: %s", err, firstLine(out))
	}
	delays := []time.Duration{300 * time.Millisecond, 1200 * time.Millisecond}
	for _, kind := range []string{"tcp", "http", "http-silent", "exec", "exec-silent", "log"} {
		if !b.waitRow(kind) {
			continue
		}
		var cp, floor, sleepLoop []time.Duration
		for i := range b.reps(10) {
			d := delays[i%len(delays)]
			lag, err := b.childproofLag(srv, kind, d)
			if err != nil {
				return fmt.Errorf("%s: %w", kind, err)
			}
			cp = append(cp, lag)
			for _, every := range []time.Duration{time.Millisecond, 100 * time.Millisecond} {
				lag, err := b.loopLag(srv, kind, d, every)
				if err != nil {
					return fmt.Errorf("%s loop: %w", kind, err)
				}
				if every == time.Millisecond {
					floor = append(floor, lag)
				} else {
					sleepLoop = append(sleepLoop, lag)
				}
			}
		}
		b.add("wait: ready-to-verified lag, "+kind+", childproof run --detach", ms(median(cp)), fmt.Sprintf("p95 %s over %d runs (servers ready after 0.3 s and 1.2 s); floor (1 ms poll) %s, a sleep 0.1 loop %s; load average %s", ms(p95(cp)), len(cp), ms(median(floor)), ms(median(sleepLoop)), loadAverage()))
		b.check("readiness lag "+kind+": median ≤ 25 ms, p95 ≤ 100 ms", fmt.Sprintf("%s / %s", ms(median(cp)), ms(p95(cp))), median(cp) <= 25*time.Millisecond && p95(cp) <= 100*time.Millisecond, "")
	}
	wait := 20 * time.Second
	if b.quick {
		wait = 5 * time.Second
	}
	for _, c := range []struct{ name, command, comm string }{
		{"nothing bound", `["sleep", "60"]`, ""},
		{"another member bound, tree changing", fmt.Sprintf(`["sh", "-c", "%s tcp 0s 127.0.0.1:PORT other.stamp & (while :; do sleep 0.5; done) & exec tail -f /dev/null"]`, srv), "tail"},
	} {
		if !b.waitRow("cpu-" + strings.Fields(c.name)[0]) {
			continue
		}
		cpu, took, late, err := b.waitCPU(c.command, c.comm, wait)
		if err != nil {
			return fmt.Errorf("cpu %s: %w", c.name, err)
		}
		share := float64(cpu) / float64(took) * 100
		if late >= 0 {
			b.add("wait: childproof CPU while waiting, "+c.name+", after the first half", fmt.Sprintf("%.1f%% of a core", late), "its own user+sys from the middle of the wait to its end: a long wait's steady state")
		}
		b.add("wait: childproof CPU while waiting, "+c.name, fmt.Sprintf("%.1f%% of a core", share), fmt.Sprintf("%s of its own user+sys (not the tree's) over the first %s of its run, start-up included (foreground, ready.timeout %s); load average %s", ms(cpu), took.Round(time.Millisecond), wait, loadAverage()))
		b.check("CPU while waiting ("+c.name+") ≤ 3% of a core", fmt.Sprintf("%.1f%%", share), share <= 3, "")
	}
	return nil
}

// waitRow reports whether the wait row named (a kind, or cpu-nothing,
// cpu-another) is to run: -wait lists them, empty for all.
func (b *bench) waitRow(name string) bool {
	return b.waitRows == "" || slices.Contains(strings.Split(b.waitRows, ","), name)
}

// p95 is the 95th percentile of d (the largest of fewer than 20).
func p95(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*95/100)]
}

// readySpec writes a spec for the ready server of kind in dir.
func readySpec(dir, srv, kind string, delay time.Duration, port int) (string, error) {
	ready := ""
	switch strings.TrimSuffix(kind, "-silent") {
	case "http":
		ready = `http = "/"`
	case "exec":
		ready = `exec = ["test", "-e", "ready"]`
	case "log":
		ready = `log = "^server ready$"`
	}
	spec := fmt.Sprintf(`launch "w" {
  command = [%q, %q, %q, "127.0.0.1:%d", %q]
  port "p" {
    number = %d
  }
  ready {
    %s
    timeout = "20s"
  }
}
`, srv, kind, delay.String(), port, filepath.Join(dir, "stamp"), port, ready)
	p := filepath.Join(dir, "spec.hcl")
	return p, os.WriteFile(p, []byte(spec), 0o644)
}

// readStamp reads the moment the ready server wrote.
func readStamp(dir string) (time.Time, error) {
	var b []byte
	var err error
	for range 200 {
		if b, err = os.ReadFile(filepath.Join(dir, "stamp")); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err != nil {
		return time.Time{}, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return time.Unix(0, n), err
}

// childproofLag runs childproof run --detach of the ready server and
// returns the time from its readiness to run's return.
func (b *bench) childproofLag(srv, kind string, delay time.Duration) (time.Duration, error) {
	dir, err := os.MkdirTemp(b.work, "wait-")
	if err != nil {
		return 0, err
	}
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	spec, err := readySpec(dir, srv, kind, delay, port)
	if err != nil {
		return 0, err
	}
	state := filepath.Join(dir, "state")
	cmd := exec.Command(b.bin, "run", "--detach", "--state-dir", state, spec)
	out, err := cmd.CombinedOutput()
	end := time.Now()
	defer exec.Command(b.bin, "stop", "--state-dir", state, "w").Run()
	if err != nil {
		return 0, fmt.Errorf("run: %v: %s", err, firstLine(out))
	}
	at, err := readStamp(dir)
	if err != nil {
		return 0, err
	}
	return end.Sub(at), nil
}

// loopLag starts the ready server directly and polls its check every
// every (1 ms: the floor; 100 ms: a hand-written sleep 0.1 loop),
// returning the time from its readiness to the poll that saw it.
func (b *bench) loopLag(srv, kind string, delay, every time.Duration) (time.Duration, error) {
	dir, err := os.MkdirTemp(b.work, "loop-")
	if err != nil {
		return 0, err
	}
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(srv, kind, delay.String(), addr, filepath.Join(dir, "stamp"))
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	client := &http.Client{Timeout: 2 * time.Second}
	check := func() bool {
		switch strings.TrimSuffix(kind, "-silent") {
		case "tcp":
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
			}
			return err == nil
		case "http":
			r, err := client.Get("http://" + addr + "/")
			if err != nil {
				return false
			}
			r.Body.Close()
			return r.StatusCode == 200
		case "exec":
			c := exec.Command("test", "-e", "ready")
			c.Dir = dir
			return c.Run() == nil
		default:
			for {
				select {
				case l := <-lines:
					if l == "server ready" {
						return true
					}
				default:
					return false
				}
			}
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for !check() {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("not ready in 20 s")
		}
		time.Sleep(every)
	}
	end := time.Now()
	at, err := readStamp(dir)
	if err != nil {
		return 0, err
	}
	return end.Sub(at), nil
}

// waitCPU runs childproof run in the foreground with ready.timeout wait
// for a worker that is never ready and returns its CPU time (user +
// system) and how long it ran.
func (b *bench) waitCPU(command, comm string, wait time.Duration) (time.Duration, time.Duration, float64, error) {
	dir, err := os.MkdirTemp(b.work, "cpu-")
	if err != nil {
		return 0, 0, -1, err
	}
	port, err := freePort()
	if err != nil {
		return 0, 0, -1, err
	}
	worker := ""
	if comm != "" {
		worker = fmt.Sprintf("worker {\n    comm = %q\n  }", comm)
	}
	spec := fmt.Sprintf(`launch "c" {
  command = %s
  %s
  port "p" {
    number = %d
  }
  ready {
    timeout = %q
  }
}
`, strings.ReplaceAll(command, "PORT", strconv.Itoa(port)), worker, port, wait.String())
	p := filepath.Join(dir, "spec.hcl")
	if err := os.WriteFile(p, []byte(spec), 0o644); err != nil {
		return 0, 0, -1, err
	}
	cmd := exec.Command(b.bin, "run", "--state-dir", filepath.Join(dir, "state"), p)
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, -1, err
	}
	// childproof's own CPU time (utime + stime of its /proc/PID/stat,
	// not its children's: the rusage wait4 gives counts the tree it
	// reaps), sampled every 100 ms until it exits: the last sample is
	// its wait's cost, without the teardown.
	var own, at, midCPU, mid time.Duration
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-tick.C:
			if c, ok := ownCPU(cmd.Process.Pid); ok {
				own, at = c, time.Since(t)
				if mid == 0 && at >= wait/2 {
					midCPU, mid = c, at
				}
			}
		}
	}
	if cmd.ProcessState == nil || at == 0 {
		return 0, 0, -1, fmt.Errorf("childproof did not run")
	}
	late := -1.0
	if mid > 0 && at > mid {
		late = float64(own-midCPU) / float64(at-mid) * 100
	}
	return own, at, late, nil
}

// ownCPU is a process's own CPU time (user + system, not its children's)
// from /proc/PID/stat.
func ownCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+k) * 10 * time.Millisecond, true // CLK_TCK 100
}
