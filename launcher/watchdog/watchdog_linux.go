package watchdog

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/childproof/childproof/internal/noinherit"
	"github.com/childproof/childproof/internal/pidfd"
)

// script is the watchdog of this process's foreground launches, run by
// sh. Its stdin is a pipe whose only write end this process holds
// (close-on-exec: no other process gets it). On it, a launch is
// registered as three lines, "+ ID", its marker entry (MarkerVar=VALUE)
// and its cgroup ("": none), and released as "- ID" once it ended in its
// starter's hands. The pipe's end is the starter gone (SIGKILLed, or
// exited without stopping its launches), or done with the watchdog when
// nothing is registered: the parent-death signal took the roots only, so
// every process that carries a registered launch's marker, and every
// process in its cgroup, is SIGKILLed until none is left, then the
// cgroups are removed. IDs are digits only (checked before eval).
const script = `n=0
while IFS= read -r op; do
  case $op in
  "+ "*) id=${op#+ }; IFS= read -r m || break; IFS= read -r c || break
    case $id in ''|*[!0-9]*) continue;; esac
    eval "m_$id=\$m c_$id=\$c"
    [ "$id" -gt "$n" ] && n=$id;;
  "- "*) id=${op#- }
    case $id in ''|*[!0-9]*) continue;; esac
    eval "unset m_$id c_$id";;
  esac
done
ids=
i=1
while [ $i -le $n ]; do
  eval "m=\${m_$i-}"
  [ -n "$m" ] && ids="$ids $i"
  i=$((i+1))
done
[ -z "$ids" ] && exit 0
set --
for i in $ids; do eval "set -- \"\$@\" -e \"\$m_$i\""; done
r=0
while [ $r -lt 100 ]; do
  r=$((r+1))
  left=
  for i in $ids; do
    eval "c=\$c_$i"
    [ -n "$c" ] && [ -f "$c/cgroup.kill" ] && echo 1 > "$c/cgroup.kill" 2>/dev/null
  done
  for f in $(grep -lzxF "$@" /proc/[0-9]*/environ 2>/dev/null); do
    p=${f#/proc/}; p=${p%/environ}
    kill -9 "$p" 2>/dev/null && left=1
  done
  for i in $ids; do
    eval "c=\$c_$i"
    if [ -n "$c" ] && [ -s "$c/cgroup.procs" ]; then
      left=1
      while read -r p; do kill -9 "$p" 2>/dev/null; done < "$c/cgroup.procs"
    fi
  done
  [ -z "$left" ] && break
  sleep 0.05
done
for i in $ids; do
  eval "c=\$c_$i"
  [ -n "$c" ] && rmdir "$c" 2>/dev/null
done
exit 0`

// linger is how long the watchdog outlives the release of the last
// launch registered with it: the next launch (the next test) then
// registers with it rather than starting a watchdog of its own.
const linger = 2 * time.Second

// Watchdog is a foreground launch's registration with this process's
// watchdog, the process that ends the launch's tree when its starter is
// gone: the root dies with the starter (parent-death signal), but a
// worker below a wrapper, or anything the tree forked, would not. nil:
// none (a detached launch, or sh could not be started). It is not safe
// for concurrent use: its starter releases it once.
type Watchdog struct {
	id uint64
}

// shared is this process's watchdog and its registrations, under mu.
var shared struct {
	mu sync.Mutex
	// w is the write end of the running watchdog's stdin (nil: none
	// runs); exited is closed once that watchdog has exited.
	w      *os.File
	exited chan struct{}
	// live holds the registration lines of the launches not released,
	// by ID; next is the last ID given.
	live map[uint64]string
	next uint64
	// released holds the release lines ("- ID") not yet written: each
	// goes with the next write (a registration, or the idle close), so
	// that a launch's end costs no write and no wake-up of the watchdog
	// of its own.
	released []byte
	// idle lets the watchdog go when it fires with nothing registered.
	idle *time.Timer
}

// Start registers a foreground launch whose processes carry the marker
// entry marker (proctree.MarkerVar=VALUE) and live in cgroup ("": none)
// with this process's watchdog, starting it if none runs. The watchdog
// runs in a session of its own (a signal to the starter's process group
// does not reach it), with no descriptor of the starter's but its stdin
// pipe, and without any launch's marker (it is no member of a tree). It
// is nil when no watchdog could be started.
func Start(marker, cgroup string) *Watchdog {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.next++
	id := shared.next
	line := "+ " + strconv.FormatUint(id, 10) + "\n" + marker + "\n" + cgroup + "\n"
	ok := send(line)
	// Written, or moot: a new watchdog never heard of those launches,
	// and none runs when send failed.
	shared.released = shared.released[:0]
	if !ok {
		return nil
	}
	if shared.live == nil {
		shared.live = map[uint64]string{}
	}
	shared.live[id] = line
	if shared.idle != nil {
		shared.idle.Stop()
	}
	return &Watchdog{id: id}
}

// send writes the pending releases and line to the running watchdog,
// starting one when none runs or the running one is gone (then every
// live registration is written to the new one first, and the releases
// are moot). It reports whether line was written. The caller holds
// shared.mu.
func send(line string) bool {
	if shared.w != nil {
		var err error
		if len(shared.released) > 0 {
			_, err = shared.w.Write(append(shared.released, line...))
		} else {
			_, err = shared.w.WriteString(line)
		}
		if err == nil {
			return true
		}
		shared.w.Close()
		shared.w = nil
	}
	if !spawn() {
		return false
	}
	var all []byte
	for _, l := range shared.live {
		all = append(all, l...)
	}
	all = append(all, line...)
	if _, err := shared.w.Write(all); err != nil {
		shared.w.Close()
		shared.w = nil
		return false
	}
	return true
}

// spawn starts a watchdog (shared.w, shared.exited). The caller holds
// shared.mu.
func spawn() bool {
	r, w, err := os.Pipe()
	if err != nil {
		return false
	}
	defer r.Close()
	// pidfd (close-on-exec) tells when the watchdog exits.
	fd := -1
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"childproof-watchdog", "-c", script},
		Env: []string{"PATH=/usr/bin:/bin"}, Dir: "/", Stdin: r, SysProcAttr: &syscall.SysProcAttr{Setsid: true, PidFD: &fd}}
	if err := noinherit.Run(cmd.Start); err != nil {
		w.Close()
		return false
	}
	exited := make(chan struct{})
	go func() {
		// The watchdog runs as long as this process starts launches:
		// waiting for its exit in the runtime's network poller, not in
		// waitid, holds no thread meanwhile (one a fresh process would
		// make, ~0.3 ms of CPU on a VM). Without a pidfd, Wait waits.
		if fd >= 0 {
			pidfd.Await(context.Background(), fd)
		}
		cmd.Wait()
		if fd >= 0 {
			unix.Close(fd)
		}
		close(exited)
	}()
	shared.w, shared.exited = w, exited
	return true
}

// Release tells the watchdog that the launch ended in its starter's
// hands: nothing to do for it. The release is written with the next
// registration, or before the watchdog is let go. A starter that dies
// before then has the launch treated as still registered: its marker and
// cgroup are looked for once more, and whatever still carries the marker
// is SIGKILLed (after a Stop, nothing of its tree should be left). The
// watchdog exits linger after the last release, unless another launch
// registers meanwhile.
func (d *Watchdog) Release() {
	if d == nil {
		return
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if _, ok := shared.live[d.id]; !ok {
		return
	}
	delete(shared.live, d.id)
	if shared.w != nil {
		shared.released = append(shared.released, "- "...)
		shared.released = strconv.AppendUint(shared.released, d.id, 10)
		shared.released = append(shared.released, '\n')
	}
	if len(shared.live) > 0 {
		return
	}
	if shared.idle == nil {
		shared.idle = time.AfterFunc(linger, func() {
			shared.mu.Lock()
			defer shared.mu.Unlock()
			closeIdle()
		})
	} else {
		shared.idle.Reset(linger)
	}
}

// closeIdle lets the watchdog go when nothing is registered with it: the
// pending releases are written, its stdin ends and it exits. The caller
// holds shared.mu.
func closeIdle() {
	if len(shared.live) == 0 && shared.w != nil {
		if len(shared.released) > 0 {
			shared.w.Write(shared.released)
			shared.released = shared.released[:0]
		}
		shared.w.Close()
		shared.w = nil
	}
}

// Settle lets the watchdog go at once when no launch is registered with
// it, rather than linger after the last release, and waits (up to
// timeout) until it has exited; it reports whether no watchdog runs. A
// test that counts its process's children or descriptors calls it.
func Settle(timeout time.Duration) bool {
	shared.mu.Lock()
	closeIdle()
	running, exited := shared.w != nil, shared.exited
	shared.mu.Unlock()
	if running {
		return false
	}
	if exited == nil {
		return true
	}
	select {
	case <-exited:
		return true
	case <-time.After(timeout):
		return false
	}
}
