package verify

import (
	"fmt"

	"github.com/childproof/childproof/proc"
)

// Image describes the program image pid runs: its exe and where its last
// exec laid out its argv and environment (stat fields 48–51). pid, start
// time and pidfs inode stay the same across an execve; the areas do not,
// since each exec builds a new stack at a new random address (with
// address-space randomization on, the default): a process that re-execs
// itself — the same program, even the same argv — shows another Image.
// "" when pid cannot be read (gone, or no ptrace access to its areas).
func Image(p proc.FS, pid int) string {
	s, err := p.Stat(pid)
	if err != nil || s.State == 'Z' || s.State == 'X' {
		return ""
	}
	exe, _ := p.Exe(pid)
	return fmt.Sprintf("%s %x-%x %s", exe, s.ArgStart, s.ArgEnd, ExecArea(s))
}
