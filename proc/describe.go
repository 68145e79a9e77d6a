package proc

import (
	"fmt"
	"strings"
	"time"
)

// clkTck is USER_HZ, the unit of /proc/PID/stat's start time: 100 on
// every architecture Linux supports.
const clkTck = 100

// Age returns how long ago a process with start time st (clock ticks since
// boot, Stat.StartTime) started; 0 when the uptime cannot be read.
func (p FS) Age(st uint64) time.Duration {
	up, err := p.Uptime()
	if err != nil {
		return 0
	}
	d := time.Duration((up - float64(st)/clkTck) * float64(time.Second))
	if d < 0 {
		return 0
	}
	return d.Round(time.Second)
}

// Describe describes a process for a user in one line: pid, uid, age and
// command line (cut at 200 bytes); "?" for what cannot be read.
func (p FS) Describe(pid int) string {
	uid := "?"
	if s, err := p.Status(pid); err == nil {
		uid = fmt.Sprint(s.UID)
	}
	age := "?"
	if s, err := p.Stat(pid); err == nil {
		age = p.Age(s.StartTime).String()
	}
	argv, _ := p.Cmdline(pid)
	// One line for a user: a process title padded with blanks or NULs
	// (redis-server's) reads as its words.
	cmd := strings.Join(strings.Fields(strings.Join(argv, " ")), " ")
	if len(cmd) > 200 {
		cmd = cmd[:200] + "…"
	}
	return fmt.Sprintf("pid %d uid %s age %s: %s", pid, uid, age, cmd)
}

// Describer describes processes for census lines, each pid once: a census
// of many ports held by one process reads its /proc entries once. A
// Describer is not safe for concurrent use.
type Describer struct {
	p    FS
	seen map[int]string
}

// NewDescriber returns a Describer reading p.
func NewDescriber(p FS) *Describer { return &Describer{p: p, seen: map[int]string{}} }

// Describe is FS.Describe, remembered.
func (d *Describer) Describe(pid int) string {
	s, ok := d.seen[pid]
	if !ok {
		s = d.p.Describe(pid)
		d.seen[pid] = s
	}
	return s
}
