package watchdog

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/childproof/childproof/internal/noinherit"
)

// script is the watchdog of a foreground launch, run by sh with
// the launch's marker entry (MarkerVar=VALUE) and its cgroup ("": none)
// as $1 and $2. Its stdin is a pipe whose only write end the starter
// holds (close-on-exec: no other process gets it). "done" on it: the
// launch ended in the starter's hands, nothing to do. Its end without
// "done": the starter is gone (SIGKILLed, or exited without stopping the
// launch), and the parent-death signal took the root only: every process
// that carries the launch's marker, and every process in its cgroup, is
// SIGKILLed until none is left, then the cgroup is removed.
const script = `read -r x
[ "$x" = done ] && exit 0
i=0
while [ $i -lt 100 ]; do
  i=$((i+1))
  [ -n "$2" ] && [ -f "$2/cgroup.kill" ] && echo 1 > "$2/cgroup.kill" 2>/dev/null
  left=
  for f in $(grep -lzxF -- "$1" /proc/[0-9]*/environ 2>/dev/null); do
    p=${f#/proc/}; p=${p%/environ}
    kill -9 "$p" 2>/dev/null && left=1
  done
  if [ -n "$2" ] && [ -s "$2/cgroup.procs" ]; then
    left=1
    while read -r p; do kill -9 "$p" 2>/dev/null; done < "$2/cgroup.procs"
  fi
  [ -z "$left" ] && break
  sleep 0.05
done
[ -n "$2" ] && rmdir "$2" 2>/dev/null
exit 0`

// Watchdog is the process that ends a foreground launch's tree when its
// starter is gone: the root dies with the starter (parent-death signal),
// but a worker below a wrapper, or anything the tree forked, would not.
// nil: none (a detached launch, or sh could not be started). It is not
// safe for concurrent use: its starter releases it once.
type Watchdog struct {
	w   *os.File // the write end of its stdin; its end without "done" fires it
	cmd *exec.Cmd
}

// Start starts the watchdog of a foreground launch whose processes carry
// the marker entry marker (proctree.MarkerVar=VALUE) and live in cgroup
// ("": none). It runs in a session of its own (a signal to the starter's
// process group does not reach it), with no descriptor of the starter's
// but its stdin pipe, and without the marker (it is not a member of the
// tree).
func Start(marker, cgroup string) *Watchdog {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer r.Close()
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"childproof-watchdog", "-c", script, "childproof-watchdog", marker, cgroup},
		Env: []string{"PATH=/usr/bin:/bin"}, Dir: "/", Stdin: r, SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := noinherit.Run(cmd.Start); err != nil {
		w.Close()
		return nil
	}
	go cmd.Wait()
	return &Watchdog{w: w, cmd: cmd}
}

// Release tells the watchdog that the launch ended in the starter's
// hands: it exits without acting. Safe on nil and twice.
func (d *Watchdog) Release() {
	if d == nil || d.w == nil {
		return
	}
	d.w.Write([]byte("done\n"))
	d.w.Close()
	d.w = nil
}
