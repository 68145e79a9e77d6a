package proctree

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// addrNoRandomize is the personality flag of a process whose address
// space is not randomized (setarch -R).
const addrNoRandomize = 0x0040000

// ForkedFrom lists the live processes forked, without an exec since, from
// the process that exec'd exe with its environment at area
// (verify.ExecArea) and started at start: those running exe with their
// environment block at that same area, started at or after it (that
// process too, while it runs). Where each
// exec puts the block moves with the address-space randomization, so a
// process with another exec of exe shares it only by chance: with the
// randomization off (kernel.randomize_va_space 0, or the process's own
// personality) nothing is listed. It finds a daemon a launch's worker
// forked after the launch stopped watching its forks (nginx judged in the
// moment between its bind and its fork), whose process title hides the
// launch's marker.
func ForkedFrom(p proc.FS, exe, area string, start uint64) []int {
	if exe == "" || area == "" || !randomized(p) {
		return nil
	}
	pids, err := p.Pids()
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, pid := range pids {
		if pid != self && forkedOf(p, pid, exe, area, start) {
			out = append(out, pid)
		}
	}
	return out
}

// ForkedOf reports whether pid is one of the processes ForkedFrom lists:
// running exe with its environment block at area, started at or after
// start, its address space randomized.
func ForkedOf(p proc.FS, pid int, exe, area string, start uint64) bool {
	return exe != "" && area != "" && randomized(p) && forkedOf(p, pid, exe, area, start)
}

// forkedOf is ForkedOf once the kernel is known to randomize.
func forkedOf(p proc.FS, pid int, exe, area string, start uint64) bool {
	s, err := p.Stat(pid)
	if err != nil || s.State == 'Z' || s.StartTime < start || verify.ExecArea(s) != area {
		return false
	}
	if e, err := p.Exe(pid); err != nil || e != exe {
		return false
	}
	b, err := os.ReadFile(p.Path(pid, "personality"))
	if err != nil {
		return false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 16, 32)
	return err == nil && v&addrNoRandomize == 0
}

// randomized reports whether the kernel randomizes where a process's
// stack is (kernel.randomize_va_space is not 0, read below p's root).
func randomized(p proc.FS) bool {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(p.Path(1)), "sys", "kernel", "randomize_va_space"))
	return err == nil && strings.TrimSpace(string(b)) != "0"
}
