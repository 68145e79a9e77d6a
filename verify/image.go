package verify

import "github.com/childproof/childproof/proc"

// Image describes the program image pid runs: its exe and where its last
// exec laid out its environment (ExecArea, stat fields 50–51). It is ""
// when pid cannot be read (gone, a zombie).
//
// An execve keeps the pid, start time and pidfs inode, but each exec
// builds a new stack at a new random address while address-space
// randomization is on (the default). So a process that re-execs itself,
// even with the same program and argv, shows another Image. The argv area
// is left out, because a process title set through PR_SET_MM_ARG_START
// (libbsd's setproctitle, as root) moves it without an exec.
func Image(p proc.FS, pid int) string {
	s, err := p.Stat(pid)
	if err != nil || s.State == 'Z' || s.State == 'X' {
		return ""
	}
	exe, _ := p.Exe(pid)
	return exe + " " + ExecArea(s)
}
