package readiness

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/spec"
	"golang.org/x/sys/unix"
)

// execRunTimeout bounds one run of ready.exec (it is killed, with its
// process group, after it).
const execRunTimeout = 5 * time.Second

// Exec is a launch's ready.exec, as one probe runs it: no shell, in the
// launch's directory and environment (and as its user). Safe for
// concurrent use (Run reads it only).
type Exec struct {
	// Argv is the command and its arguments; a command without a slash
	// is looked up in PATH, a relative one is from Dir.
	Argv []string
	// PATH is the launch's PATH.
	PATH string
	Dir  string
	Env  []string
	// Cred is the launch's user (nil: this process's).
	Cred *syscall.Credential
	// Secrets mask what its failures say.
	Secrets *redact.Set
}

// Run runs the command once, for at most execRunTimeout (then it is
// killed with its process group), cut short by the deadline. Nil when
// it exits 0; else its exit and the last line it printed, secrets
// masked.
func (e Exec) Run(ctx context.Context, deadline time.Time) error {
	argv := e.Argv
	prog := argv[0]
	if !strings.Contains(prog, "/") {
		found, ok := spec.LookPath(prog, e.PATH, e.Dir)
		if !ok {
			return fmt.Errorf("Ready.Exec: %s: not found in the launch's PATH", e.Secrets.Arg(prog))
		}
		prog = found
	} else if !filepath.IsAbs(prog) {
		prog = filepath.Join(e.Dir, prog)
	}
	limit := min(execRunTimeout, max(time.Until(deadline), time.Millisecond))
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var out tailBuffer
	cmd := &exec.Cmd{Path: prog, Args: argv, Env: e.Env, Dir: e.Dir, Stdout: &out, Stderr: &out,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	if e.Cred != nil {
		cmd.SysProcAttr.Credential = e.Cred
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("Ready.Exec: %s", e.Secrets.Text(err.Error()))
	}
	pid := cmd.Process.Pid
	stop := context.AfterFunc(rctx, func() { unix.Kill(-pid, unix.SIGKILL) })
	err := cmd.Wait()
	stop()
	if err == nil {
		return nil
	}
	what := "Ready.Exec " + e.Secrets.Arg(filepath.Base(argv[0]))
	if errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		if limit < execRunTimeout {
			return fmt.Errorf("%s was cut short by the readiness deadline: %w", what, errCutShort)
		}
		return fmt.Errorf("%s did not exit within %s", what, execRunTimeout)
	}
	msg := fmt.Sprintf("%s: %v", what, err)
	if line := out.lastLine(); line != "" {
		msg += ": " + e.Secrets.Text(line)
	}
	return errors.New(msg)
}
