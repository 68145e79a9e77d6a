package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/childproof/childproof/internal/bufpool"
)

// FS reads process records below a /proc root. An FS holds no state of its
// own: it is safe for concurrent use. One from Hold reads one process's
// records through descriptors it holds, until they are released.
type FS struct {
	// Root is the proc mount, "/proc" when empty.
	Root string
	// held are the records Hold holds open (nil: none).
	held *held
}

// Default is the FS of the running system.
var Default = FS{Root: "/proc"}

// ErrGone reports that the process no longer exists (or is a zombie whose
// records are gone).
var ErrGone = errors.New("process is gone")

func (p FS) root() string {
	if p.Root == "" {
		return "/proc"
	}
	return p.Root
}

// Path returns the path of name below the directory of pid.
func (p FS) Path(pid int, name ...string) string {
	return filepath.Join(append([]string{p.root(), strconv.Itoa(pid)}, name...)...)
}

// file is Path(pid, name) for one plain name, without filepath.Join's
// cleaning when the root needs none (the path is built for every record
// read).
func (p FS) file(pid int, name string) string {
	r := p.root()
	if r == "" || r[len(r)-1] == '/' || strings.Contains(name, "/") {
		return p.Path(pid, name)
	}
	return r + "/" + strconv.Itoa(pid) + "/" + name
}

func (p FS) read(pid int, name string) ([]byte, error) { return p.readInto(pid, name, nil) }

// readInto is read into buf's room (len 0; a larger buffer when the record
// does not fit, or buf is nil).
func (p FS) readInto(pid int, name string, buf []byte) ([]byte, error) {
	if h := p.heldOf(pid); h != nil {
		if b, err, ok := h.read(name, p.file(pid, name), buf); ok {
			if err != nil {
				return nil, wrapErr(pid, name, err)
			}
			return b, nil
		}
	}
	b, err := readFileInto(p.file(pid, name), buf)
	if err != nil {
		return nil, wrapErr(pid, name, err)
	}
	return b, nil
}

// recBufs holds the buffers of records that are parsed and dropped
// (stat, status, comm, cmdline; never environ, whose values must not
// outlive their use): a start reads about ten, which were 2 KiB each.
var recBufs = bufpool.New(2048, 64<<10)

// readTemp reads the record name of pid into a buffer of recBufs, which
// the caller gives back with recBufs.Put(bp, b) once it is done with b.
func (p FS) readTemp(pid int, name string) (b []byte, bp *[]byte, err error) {
	bp = recBufs.Get()
	b, err = p.readInto(pid, name, (*bp)[:0])
	return b, bp, err
}

// wrapErr maps "no such process" shapes to ErrGone, keeping the cause.
func wrapErr(pid int, name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("pid %d: %s: %w (%w)", pid, name, ErrGone, err)
	}
	return fmt.Errorf("pid %d: %s: %w", pid, name, err)
}

// Environ returns the environment block the process was exec'd with, in
// order. It is frozen at exec: a shell's later export or unset never shows.
func (p FS) Environ(pid int) ([]Var, error) {
	b, err := p.read(pid, "environ")
	if err != nil {
		return nil, err
	}
	return ParseEnviron(b), nil
}

// EnvironRaw returns the raw environ bytes.
func (p FS) EnvironRaw(pid int) ([]byte, error) { return p.read(pid, "environ") }

// Stat returns the parsed /proc/PID/stat.
func (p FS) Stat(pid int) (Stat, error) {
	b, bp, err := p.readTemp(pid, "stat")
	if err != nil {
		recBufs.Put(bp, nil)
		return Stat{}, err
	}
	s, err := ParseStat(b)
	recBufs.Put(bp, b)
	if err != nil {
		return Stat{}, fmt.Errorf("pid %d: stat: %w", pid, err)
	}
	return s, nil
}

// Status returns the fields of /proc/PID/status childproof uses.
func (p FS) Status(pid int) (Status, error) {
	b, bp, err := p.readTemp(pid, "status")
	if err != nil {
		recBufs.Put(bp, nil)
		return Status{}, err
	}
	s, err := ParseStatus(b)
	recBufs.Put(bp, b)
	if err != nil {
		return Status{}, fmt.Errorf("pid %d: status: %w", pid, err)
	}
	return s, nil
}

// Exe returns the target of /proc/PID/exe. An unlinked binary ends in
// " (deleted)"; a script's exe is its interpreter.
func (p FS) Exe(pid int) (string, error) { return p.link(pid, "exe") }

// link returns the target of the link name below pid's directory.
func (p FS) link(pid int, name string) (string, error) {
	if h := p.heldOf(pid); h != nil {
		if s, err, ok := h.readlink(name, p.file(pid, name)); ok {
			if err != nil {
				return "", wrapErr(pid, name, err)
			}
			return s, nil
		}
	}
	s, err := os.Readlink(p.file(pid, name))
	if err != nil {
		return "", wrapErr(pid, name, err)
	}
	return s, nil
}

// Comm returns /proc/PID/comm without its newline (at most 15 bytes).
func (p FS) Comm(pid int) (string, error) {
	b, bp, err := p.readTemp(pid, "comm")
	if err != nil {
		recBufs.Put(bp, nil)
		return "", err
	}
	s := string(bytes.TrimSuffix(b, []byte("\n")))
	recBufs.Put(bp, b)
	return s, nil
}

// Cmdline returns the argv of the process. A zombie's is empty.
func (p FS) Cmdline(pid int) ([]string, error) {
	b, bp, err := p.readTemp(pid, "cmdline")
	if err != nil {
		recBufs.Put(bp, nil)
		return nil, err
	}
	args := ParseCmdline(b)
	recBufs.Put(bp, b)
	return args, nil
}

// CmdlineRaw returns /proc/PID/cmdline as the kernel gives it. It runs
// past the argv area (Stat.ArgEnd-ArgStart) when a process title was
// written over the end of argv into the environment area (setproctitle).
func (p FS) CmdlineRaw(pid int) ([]byte, error) { return p.read(pid, "cmdline") }

// ParseCmdline splits a NUL-separated argv block.
func ParseCmdline(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(b), "\x00")
	return strings.Split(s, "\x00")
}

// SocketInodes returns the inodes of the sockets in the process's fd table.
func (p FS) SocketInodes(pid int) ([]uint64, error) { return p.socketInodes(pid) }

// HasSocket reports whether the process holds the socket inode in its fds
// (their links read up to the one that is it).
func (p FS) HasSocket(pid int, inode uint64) (bool, error) {
	fd, err := p.SocketFD(pid, inode)
	return fd != "", err
}

// SocketFD is HasSocket telling where: the name of the fd of the process
// that holds the socket inode (the first in its fd table), "" when none
// does.
func (p FS) SocketFD(pid int, inode uint64) (string, error) {
	at := ""
	err := p.eachSocket(pid, func(ino uint64, fd string) bool {
		if ino == inode {
			at = fd
		}
		return at != ""
	})
	return at, err
}

// HasSocketAt reports whether the process's fd named fd (as SocketFD
// names it) is the socket inode now: one link read, where HasSocket
// reads the fd table up to it.
func (p FS) HasSocketAt(pid int, fd string, inode uint64) bool {
	t, err := p.link(pid, "fd/"+fd)
	if err != nil {
		return false
	}
	ino, ok := socketInode(t)
	return ok && ino == inode
}

// socketInode parses a "socket:[INODE]" link target.
func socketInode(target string) (uint64, bool) {
	if !strings.HasPrefix(target, "socket:[") || !strings.HasSuffix(target, "]") {
		return 0, false
	}
	n, err := strconv.ParseUint(target[len("socket:["):len(target)-1], 10, 64)
	return n, err == nil
}

// Children returns the direct children of pid: the union over all of its
// threads' task/TID/children lists (a Go program's children are spread over
// its threads), sorted.
func (p FS) Children(pid int) ([]int, error) {
	dir := p.file(pid, "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, wrapErr(pid, "task", err)
	}
	seen := map[int]bool{}
	var out []int
	for _, t := range tasks {
		b, err := readFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			c, err := strconv.Atoi(f)
			if err == nil && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// Descendants returns every descendant of pid, breadth first (parents
// before their children). pid itself is not included.
func (p FS) Descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	seen := map[int]bool{pid: true}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		kids, _ := p.Children(cur)
		for _, k := range kids {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
				queue = append(queue, k)
			}
		}
	}
	return out
}

// Ancestors returns pid's ancestors, nearest first, stopping after stop
// (inclusive) or at pid 1.
func (p FS) Ancestors(pid, stop int) []int {
	var out []int
	cur := pid
	for range 4096 {
		s, err := p.Stat(cur)
		if err != nil || s.PPid <= 0 {
			break
		}
		out = append(out, s.PPid)
		if s.PPid == stop || s.PPid == 1 {
			break
		}
		cur = s.PPid
	}
	return out
}

// Pids lists every numeric entry of the root.
func (p FS) Pids() ([]int, error) {
	f, err := os.Open(p.root())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(names))
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		if pid, err := strconv.Atoi(n); err == nil {
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out, nil
}

// FindSocketOwners returns the pids among candidates (all of /proc when
// candidates is nil) that hold inode in their fd tables.
func (p FS) FindSocketOwners(inode uint64, candidates []int) []int {
	if candidates == nil {
		candidates, _ = p.Pids()
	}
	var out []int
	for _, pid := range candidates {
		if ok, _ := p.HasSocket(pid, inode); ok {
			out = append(out, pid)
		}
	}
	return out
}

// Uptime returns the seconds since boot from /proc/uptime.
func (p FS) Uptime() (float64, error) {
	b, err := readFile(filepath.Join(p.root(), "uptime"))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, errors.New("uptime: empty")
	}
	return strconv.ParseFloat(f[0], 64)
}

// SocketOwnersOf maps each of inodes to the pids holding it, in one pass
// over every process's fd table (the cost of one FindSocketOwners(…, nil),
// for any number of sockets). The fd tables are read by a few goroutines
// at once; each list of pids is ascending.
func (p FS) SocketOwnersOf(inodes map[uint64]bool) map[uint64][]int {
	out := map[uint64][]int{}
	if len(inodes) == 0 {
		return out
	}
	pids, _ := p.Pids()
	const workers = 4
	parts := make([]map[uint64][]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found := map[uint64][]int{}
			for i := w; i < len(pids); i += workers {
				inos, err := p.socketInodes(pids[i])
				if err != nil {
					continue
				}
				for _, ino := range inos {
					if inodes[ino] && !slices.Contains(found[ino], pids[i]) {
						found[ino] = append(found[ino], pids[i])
					}
				}
			}
			parts[w] = found
		}()
	}
	wg.Wait()
	for _, part := range parts {
		for ino, ps := range part {
			out[ino] = append(out[ino], ps...)
		}
	}
	for ino := range out {
		slices.Sort(out[ino])
	}
	return out
}
