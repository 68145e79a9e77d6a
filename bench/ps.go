//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// psRecords and psProcs are the census target's scale: ps under 50 ms
// with 1,000 records on a machine running 10,000 processes.
const (
	psRecords = 1000
	psProcs   = 10000
)

// ps times `childproof ps` over a state dir of psRecords records — 10
// alive servers holding their recorded ports, 90 alive port-less workers,
// 900 launches whose worker is gone and whose port is free — with psProcs
// idle processes running; then again with one recorded port held by a
// process that is not its worker, which ps must name (one pass over every
// process's fd table).
func (b *bench) ps() error {
	dir := filepath.Join(b.work, "ps-state")
	st, err := launcher.OpenState(dir)
	if err != nil {
		return err
	}
	var idle idleProcs
	defer idle.end()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		return err
	}
	goneFP := verify.Fingerprint{Pid: gone.Process.Pid, StartTime: 1, Exe: "/usr/bin/true", Comm: "true"}
	save := func(i int, w verify.Fingerprint, port int) error {
		rec := &launcher.Record{Name: fmt.Sprintf("launch-%04d", i),
			Argv: []string{"srv"}, Dir: "/",
			Started: time.Now(), Detached: true,
			Root: w, Worker: w,
			Env: map[string]string{}, WorkerEnv: map[string]string{}}
		if port != 0 {
			rec.Ports = []launcher.RecordPort{{Number: port, Address: "127.0.0.1"}}
		}
		return st.Save(rec)
	}
	quiet := quietPorts{}
	for i := range psRecords {
		switch {
		case i < 10:
			port, err := freePort()
			if err != nil {
				return err
			}
			srv, _, err := b.startServer(port)
			if err != nil {
				return err
			}
			defer stopOwn(srv)
			fp, err := verify.TakeFingerprint(proc.Default, srv.Process.Pid)
			if err != nil {
				return err
			}
			if err := save(i, fp, port); err != nil {
				return err
			}
		case i < 100:
			if err := idle.spawn(1); err != nil {
				return err
			}
			c := idle[len(idle)-1]
			var fp verify.Fingerprint
			for range 100 { // until sleep has exec'd
				if fp, err = verify.TakeFingerprint(proc.Default, c.Process.Pid); err == nil && fp.Comm == "sleep" {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if err := save(i, fp, 0); err != nil {
				return err
			}
		default:
			port, err := quiet.next()
			if err != nil {
				return err
			}
			if err := save(i, goneFP, port); err != nil {
				return err
			}
		}
	}
	have, _ := proc.Default.Pids()
	if err := idle.spawn(psProcs - len(have)); err != nil {
		return err
	}
	env := append(b.cpEnv(), "CHILDPROOF_STATE_DIR="+dir)
	// timePs returns the median wall time of ps and its median CPU time
	// (user + system): on a shared machine the wall time also counts the
	// time ps waited for a core. With a baseline, each of the first 7 ps
	// is followed by one run of procps's ps -e over the same processes,
	// and pairs holds the ratios, pair by pair.
	var pairs []float64
	timePs := func(baseline bool) (time.Duration, time.Duration, error) {
		var ds, cs []time.Duration
		for i := range b.reps(20) {
			c := exec.Command(b.bin, "ps")
			c.Env = env
			t := time.Now()
			out, err := c.Output()
			if err != nil {
				return 0, 0, fmt.Errorf("ps: %v: %s", err, firstLine(out))
			}
			d := time.Since(t)
			ds = append(ds, d)
			cs = append(cs, c.ProcessState.UserTime()+c.ProcessState.SystemTime())
			if baseline && i < b.reps(7) { // ps -e reads several files per process: seconds at 10,000
				t := time.Now()
				if err := exec.Command("ps", "-e", "-o", "pid,comm").Run(); err != nil {
					return 0, 0, fmt.Errorf("procps ps -e: %w", err)
				}
				pairs = append(pairs, float64(d)/float64(time.Since(t)))
			}
		}
		return median(ds), median(cs), nil
	}
	if _, _, err := timePs(false); err != nil { // the first ps notes the gone workers
		return err
	}
	load0 := loadAverage()
	_, hasProcps := exec.LookPath("ps")
	d, cpu, err := timePs(hasProcps == nil)
	if err != nil {
		return err
	}
	load := fmt.Sprintf("load average %s at the start, %s at the end", load0, loadAverage())
	procs, _ := proc.Default.Pids()
	b.add(fmt.Sprintf("ps: %d records, %d processes running", psRecords, len(procs)), ms(d), fmt.Sprintf("target ≤ 30 ms; CPU time %s; %s", ms(cpu), load))
	if len(pairs) > 0 {
		pr, sp := spread(pairs)
		b.add("ps: the same, over procps's ps -e on the same processes", pr, fmt.Sprintf("%s pair by pair, the two in turn (ps -e lists every process, no records)", sp))
	}
	b.check(fmt.Sprintf("ps with %d records on a machine running %d processes within 30 ms", psRecords, psProcs), ms(d), d <= 30*time.Millisecond,
		fmt.Sprintf("CPU time %s (%s): on a machine busy with other work the wall time is mostly waiting for a core; "+
			"per record ps opens and reads one file, checks its MAC and decodes its summary line, and checks the worker by pidfd; see BenchmarkCensus1000", ms(cpu), load))
	// One recorded port held by a stranger: ps names it.
	rec, err := st.Load("launch-0999")
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(rec.Ports[0].Number))
	if err != nil {
		return err
	}
	defer ln.Close()
	d2, cpu2, err := timePs(false)
	if err != nil {
		return err
	}
	b.add(fmt.Sprintf("ps: the same, one recorded port held by another process (pid %d)", os.Getpid()), ms(d2),
		fmt.Sprintf("CPU time %s; naming a holder reads every process's fd table once, whatever the number of such ports", ms(cpu2)))
	return nil
}

// quietPorts hands out free ports above the kernel's ephemeral range,
// where no process that listens on :0 (the tests of others on a shared
// machine) can take one: the gone launches' ports stay free while ps is
// timed, so no run pays for naming a stranger by chance. Below the range
// when there is no room above it.
type quietPorts struct{ last int }

func (q *quietPorts) next() (int, error) {
	if q.last == 0 {
		q.last = 65535 + 1
		if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
			var lo, hi int
			if _, err := fmt.Sscan(string(b), &lo, &hi); err == nil && 65535-hi < psRecords {
				q.last = lo // no room above: below it
			}
		}
	}
	for q.last > 1024 {
		q.last--
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(q.last))
		if err == nil {
			ln.Close()
			return q.last, nil
		}
	}
	return freePort()
}

// idleProcs are idle processes of this program's own (sleep), ended by
// handle.
type idleProcs []*exec.Cmd

func (p *idleProcs) spawn(n int) error {
	for range n {
		c := exec.Command("sleep", "600")
		if err := c.Start(); err != nil {
			return fmt.Errorf("starting idle processes: %w", err)
		}
		*p = append(*p, c)
	}
	return nil
}

func (p idleProcs) end() {
	for _, c := range p {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
}
