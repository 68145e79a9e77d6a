package proc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
)

// EnvironAfterExec reads pid's environ, retrying briefly while it is empty
// (right after exec the kernel may not show it yet).
func (p FS) EnvironAfterExec(pid int) ([]Var, error) {
	var last error
	for i := range 200 {
		vars, err := p.Environ(pid)
		if err == nil && len(vars) > 0 {
			return vars, nil
		}
		last = err
		if err != nil && errors.Is(err, ErrGone) {
			return nil, err
		}
		if i < 20 {
			time.Sleep(50 * time.Microsecond)
		} else {
			time.Sleep(time.Millisecond)
		}
	}
	return nil, last
}

// LiveEnv is a process's live /proc/PID/environ. It is plain data, safe for
// concurrent use while no one changes it.
type LiveEnv struct {
	// Vars are its entries; of a rewritten block, only those the rewrite
	// left intact (IntactEnv).
	Vars []Var
	// Rewritten says why the block is no longer the one the kernel set at
	// exec ("" when nothing shows it was rewritten).
	Rewritten string
	// Unreadable says why a block that read empty is not the process's
	// environment (it is exiting, or its environment area holds bytes the
	// read did not return); "" when it was read, or is empty at exec.
	Unreadable string
	// Exiting says the block read empty because the process is exiting
	// (its memory is gone); Unreadable says so too.
	Exiting bool
}

// Partial reports whether le's Vars may lack names the process's exec
// gave it: the block was rewritten (only what the rewrite left is in
// Vars) or could not be read.
func (le LiveEnv) Partial() bool { return le.Rewritten != "" || le.Unreadable != "" }

// LiveEnv reads pid's environ, retrying briefly while it reads empty
// (right after an exec), and tells whether the process rewrote it.
func (p FS) LiveEnv(pid int) (LiveEnv, error) {
	var raw []byte
	var err error
	for i := range 200 {
		raw, err = p.EnvironRaw(pid)
		if err == nil && len(raw) > 0 {
			break
		}
		if err != nil && errors.Is(err, ErrGone) {
			return LiveEnv{}, err
		}
		if i < 20 {
			time.Sleep(50 * time.Microsecond)
		} else {
			time.Sleep(time.Millisecond)
		}
	}
	if err != nil {
		return LiveEnv{}, err
	}
	return p.ParseLive(pid, raw), nil
}

// ParseLive parses raw, pid's environment block as read, and tells
// whether the process rewrote it (Rewritten); a rewritten block's Vars
// are what the rewrite left intact (IntactEnv). It reads pid's stat and
// cmdline at most once.
func (p FS) ParseLive(pid int, raw []byte) LiveEnv {
	le := LiveEnv{Vars: ParseEnviron(raw)}
	if len(raw) == 0 {
		le.Unreadable, le.Exiting = p.emptyRead(pid)
		return le
	}
	over := -1 // the title's run past the argv area, not read yet
	if le.Rewritten = blockSign(raw, le.Vars); le.Rewritten == "" {
		var cmdLen, argLen int
		if over, cmdLen, argLen = p.argOverrun(pid); over > 0 {
			le.Rewritten = overrunSign(cmdLen, argLen)
		}
	}
	if le.Rewritten != "" {
		if over < 0 {
			over, _, _ = p.argOverrun(pid)
		}
		le.Vars = Intact(raw, over)
	}
	return le
}

// emptyRead says why pid's environment block, read empty, is not its
// environment: the kernel shows an empty environment area only for a
// process exec'd with none. A process that is exiting has no memory left
// to read (nor an area in its stat): exiting. "" when its area is empty.
func (p FS) emptyRead(pid int) (why string, exiting bool) {
	s, err := p.Stat(pid)
	switch {
	case err != nil:
		return "its environment block read empty and its stat could not be read", errors.Is(err, ErrGone)
	case s.State == 'Z' || s.State == 'X' || s.EnvEnd == 0:
		return "its environment block read empty: it is exiting", true
	case s.EnvEnd > s.EnvStart:
		return fmt.Sprintf("its environment block read empty, yet its environment area is %d bytes", s.EnvEnd-s.EnvStart), false
	}
	return "", false
}

// Rewritten names the sign that pid wrote over its environment block
// (raw, parsed as vars), or returns "". The signs (docs/launcher.md,
// "Exec-time evidence"):
//   - the block is NUL bytes only (nginx pads its title with NULs to the end
//     of the environment area);
//   - an entry is not NAME=VALUE (a title: no '=', or a name with spaces);
//   - /proc/PID/cmdline runs past the argv area (stat fields 48–49) into
//     the environment area.
func (p FS) Rewritten(pid int, raw []byte, vars []Var) string {
	if sign := blockSign(raw, vars); sign != "" {
		return sign
	}
	if over, cmdLen, argLen := p.argOverrun(pid); over > 0 {
		return overrunSign(cmdLen, argLen)
	}
	return ""
}

// blockSign is Rewritten's signs that the block itself shows.
func blockSign(raw []byte, vars []Var) string {
	if len(raw) > 0 && len(bytes.Trim(raw, "\x00")) == 0 {
		return fmt.Sprintf("its %d-byte environment block holds only NUL bytes", len(raw))
	}
	for i, v := range vars {
		if !validEntry(raw, v) {
			return fmt.Sprintf("entry %d of its environment block is not NAME=VALUE (a process title written over it)", i+1)
		}
	}
	return ""
}

// overrunSign is Rewritten's sign of a command line of cmdLen bytes
// past an argv area of argLen.
func overrunSign(cmdLen, argLen int) string {
	return fmt.Sprintf("its command line (%d bytes) runs past its %d-byte argv area into the environment area", cmdLen, argLen)
}

// argOverrun returns how many bytes pid's /proc/PID/cmdline (cmdLen
// bytes) runs past its argv area (argLen bytes, stat fields 48–49): a
// title written into the environment area; 0 when it does not, or when
// either cannot be read.
func (p FS) argOverrun(pid int) (over, cmdLen, argLen int) {
	s, err := p.Stat(pid)
	if err != nil || s.ArgEnd <= s.ArgStart {
		return 0, 0, 0
	}
	cl, bp, err := p.readTemp(pid, "cmdline")
	recBufs.Put(bp, cl)
	if err != nil || uint64(len(cl)) <= s.ArgEnd-s.ArgStart {
		return 0, 0, 0
	}
	argLen = int(s.ArgEnd - s.ArgStart)
	return len(cl) - argLen, len(cl), argLen
}

// validEntry reports whether v came from a NAME=VALUE entry with a
// plausible name: a title chunk has no '=' or spaces in what precedes it.
func validEntry(raw []byte, v Var) bool {
	if v.Name == "" || strings.ContainsAny(v.Name, " \t\n") {
		return false
	}
	if v.Value != "" {
		return true
	}
	return bytes.Contains(raw, []byte("\x00"+v.Name+"=")) || bytes.HasPrefix(raw, []byte(v.Name+"="))
}

// IntactEnv returns the entries of pid's rewritten environment block raw
// that the rewrite cannot have touched (Intact), the title's run past the
// argv area (/proc/PID/cmdline longer than stat fields 48–49 say) skipped.
func (p FS) IntactEnv(pid int, raw []byte) []Var {
	over, _, _ := p.argOverrun(pid)
	return Intact(raw, over)
}

// Intact returns the entries of an environment block raw that a process
// title written over its start left as its exec received them: those
// after the first skip bytes (the title's run into the block) and after
// the last chunk that is not a NAME=VALUE entry (title text), less the
// first of them — it may be the tail of an entry the title cut, which can
// read as another name ("X_HF_TOKEN=…" cut to "HF_TOKEN=…"). A block of
// NUL bytes only has none.
func Intact(raw []byte, skip int) []Var {
	type chunk struct {
		b   []byte
		end int
	}
	var chunks []chunk
	for off := 0; off < len(raw); {
		i := bytes.IndexByte(raw[off:], 0)
		end := len(raw)
		if i >= 0 {
			end = off + i
		}
		if end > off {
			chunks = append(chunks, chunk{raw[off:end], end})
		}
		off = end + 1
	}
	cut := skip
	for _, c := range chunks {
		if v := ParseEnviron(c.b); len(v) != 1 || !validEntry(c.b, v[0]) || !bytes.Contains(c.b, []byte("=")) {
			cut = max(cut, c.end)
		}
	}
	var out []Var
	first := true
	for _, c := range chunks {
		if c.end-len(c.b) < cut {
			continue
		}
		if first {
			first = false
			continue
		}
		out = append(out, ParseEnviron(c.b)...)
	}
	return out
}
