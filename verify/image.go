package verify

import "github.com/childproof/childproof/proc"

// Image describes the program image pid runs: its exe and where its last
// exec laid out its environment (ExecArea, stat fields 50–51). pid, start
// time and pidfs inode stay the same across an execve; the area does not,
// since each exec builds a new stack at a new random address (with
// address-space randomization on, the default): a process that re-execs
// itself — the same program, even the same argv — shows another Image.
// The argv area is left out: a process title set through
// PR_SET_MM_ARG_START (libbsd's setproctitle, as root) moves it without
// an exec. "" when pid cannot be read (gone, a zombie).
func Image(p proc.FS, pid int) string {
	s, err := p.Stat(pid)
	if err != nil || s.State == 'Z' || s.State == 'X' {
		return ""
	}
	exe, _ := p.Exe(pid)
	return exe + " " + ExecArea(s)
}
