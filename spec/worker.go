package spec

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/childproof/childproof/internal/specrule"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/childproof/childproof/internal/inputfile"
)

// ResolveExe returns the path a worker { exe } selector names with every
// symlink resolved — what /proc/PID/exe shows for a process running it
// (/usr/bin/python3 → /usr/bin/python3.11) — or exe itself when it cannot
// be resolved.
func ResolveExe(exe string) string {
	if exe == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		return r
	}
	return exe
}

// ErrExeMissing marks a worker exe that does not exist (yet).
var ErrExeMissing = errors.New("does not exist")

// ExeNeverMatches explains why no process can ever have exe as its
// /proc/PID/exe, or returns nil: the path does not exist (ErrExeMissing),
// is not a regular executable file, or is a script — the kernel shows a
// script's interpreter as its exe, never the script.
func ExeNeverMatches(exe string) error {
	if exe == "" {
		return nil
	}
	r, err := filepath.EvalSymlinks(exe)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("worker exe %s %w: no process can have it as its /proc/PID/exe", exe, ErrExeMissing)
		}
		return nil
	}
	fi, err := os.Stat(r)
	if err != nil {
		return nil
	}
	shown := exe
	if r != exe {
		shown = fmt.Sprintf("%s (%s)", exe, r)
	}
	if !fi.Mode().IsRegular() || !specrule.Executable(fi.Mode()) {
		return fmt.Errorf("worker exe %s is not an executable file: no process can have it as its /proc/PID/exe", shown)
	}
	if head, _ := inputfile.Head(r, 2); bytes.Equal(head, []byte("#!")) {
		return fmt.Errorf("worker exe %s is a script: the kernel shows its interpreter as /proc/PID/exe, never the script, so it can never match; select the interpreter's path, or use comm (a script's comm is its file name, cut to 15 bytes)", shown)
	}
	return nil
}
