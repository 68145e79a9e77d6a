package inspect

import (
	"fmt"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/sockdiag"
	"github.com/childproof/childproof/proc"
)

// clkTck is USER_HZ, the unit of /proc/PID/stat's start time: 100 on
// every architecture Linux supports.
const clkTck = 100

// Age returns how long ago a process with start time st (clock ticks since
// boot) started.
func Age(p proc.FS, st uint64) time.Duration {
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

// DescribePid describes a process for a user in one line: pid, uid, age
// and command line (cut at 200 bytes).
func DescribePid(p proc.FS, pid int) string {
	uid := "?"
	if s, err := p.Status(pid); err == nil {
		uid = fmt.Sprint(s.UID)
	}
	age := "?"
	if s, err := p.Stat(pid); err == nil {
		age = Age(p, s.StartTime).String()
	}
	argv, _ := p.Cmdline(pid)
	cmd := strings.Join(argv, " ")
	if len(cmd) > 200 {
		cmd = cmd[:200] + "…"
	}
	return fmt.Sprintf("pid %d uid %s age %s: %s", pid, uid, age, cmd)
}

// Describer describes processes for census lines, each pid once: a census
// of many ports held by one process reads its /proc entries once.
type Describer struct {
	p    proc.FS
	seen map[int]string
}

// NewDescriber returns a Describer reading p.
func NewDescriber(p proc.FS) *Describer { return &Describer{p: p, seen: map[int]string{}} }

// Pid is DescribePid, remembered.
func (d *Describer) Pid(pid int) string {
	s, ok := d.seen[pid]
	if !ok {
		s = DescribePid(d.p, pid)
		d.seen[pid] = s
	}
	return s
}

// Holder describes the listener l held by pids: each process, or that no
// visible process holds it.
func (d *Describer) Holder(l sockdiag.Listener, pids []int) string {
	if len(pids) == 0 {
		return fmt.Sprintf("%s held by uid %d with no visible process (another pid namespace, or fds unreadable) — socket inode %d",
			l.AddrPort(), l.UID, l.Inode)
	}
	var parts []string
	for _, pid := range pids {
		parts = append(parts, d.Pid(pid))
	}
	return fmt.Sprintf("%s held by %s", l.AddrPort(), strings.Join(parts, "; "))
}
