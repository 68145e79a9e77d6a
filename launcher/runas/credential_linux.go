package runas

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/launcher/launchenv"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/spec"
	"github.com/childproof/childproof/verify"
)

// Credential resolves the spec's user and group into the credential the
// launched process is started with (SysProcAttr.Credential): the user's
// uid, the group's gid (else the user's primary group) and the user's
// supplementary groups from the user database, as initgroups(3) gives a
// login. nil when the spec names neither. Anything but root asking for
// another uid or gid is refused: nothing has started yet.
func Credential(l *spec.Launch) (*syscall.Credential, error) {
	if l.User == "" && l.Group == "" {
		return nil, nil
	}
	c, err := resolveCredential(l)
	if err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 && c.Uid == uint32(os.Geteuid()) && c.Gid == uint32(os.Getegid()) {
		return nil, nil // already that user and group: nothing to set
	}
	if os.Geteuid() != 0 {
		return nil, &failure.Error{Outcome: outcome.Usage, Spec: l,
			Msg:  fmt.Sprintf("launch %q: %s needs root: childproof runs as uid %d, and only root can start a process as another user or group; nothing was started", l.Name, Name(l), os.Geteuid()),
			Hint: "run childproof as root (it sets the user at exec: no su, sudo, runuser or setpriv wrapper), or drop user/group from the spec"}
	}
	return c, nil
}

// The hints of a User or Group that names no user or group; they name
// nothing of Go's or the command's, so the command says them too.
const (
	noSuchUserHint  = "create the user, or name one that exists (getent passwd NAME)"
	noSuchGroupHint = "create the group, or name one that exists (getent group NAME)"
)

// resolveCredential looks the spec's user and group up in the user database.
func resolveCredential(l *spec.Launch) (*syscall.Credential, error) {
	c := &syscall.Credential{Uid: uint32(os.Geteuid()), Gid: uint32(os.Getegid())}
	if l.User != "" {
		u, err := lookupUser(l.User)
		if err != nil {
			return nil, &failure.Error{Outcome: outcome.Usage, Err: err, Fix: failure.FixNoSuchUser, Spec: l,
				Msg:  fmt.Sprintf("launch %q: User %q: no such user on this machine", l.Name, l.User),
				Hint: noSuchUserHint}
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		c.Uid, c.Gid = uint32(uid), uint32(gid)
		if ids, err := u.GroupIds(); err == nil {
			for _, s := range ids {
				if g, err := strconv.ParseUint(s, 10, 32); err == nil {
					c.Groups = append(c.Groups, uint32(g))
				}
			}
		}
	}
	if l.Group != "" {
		g, err := lookupGroup(l.Group)
		if err != nil {
			return nil, &failure.Error{Outcome: outcome.Usage, Err: err, Fix: failure.FixNoSuchGroup, Spec: l,
				Msg:  fmt.Sprintf("launch %q: Group %q: no such group on this machine", l.Name, l.Group),
				Hint: noSuchGroupHint}
		}
		c.Gid = g
	}
	if c.Groups == nil {
		c.Groups = []uint32{c.Gid}
	}
	return c, nil
}

// Name names the spec's user and group for a message, in Go's words.
func Name(l *spec.Launch) string { return launchenv.GoWords.RunAs(l.User, l.Group) }

func lookupUser(s string) (*user.User, error) {
	if _, err := strconv.ParseUint(s, 10, 32); err == nil {
		if u, err := user.LookupId(s); err == nil {
			return u, nil
		}
		// A numeric uid without a passwd entry: its own primary group.
		return &user.User{Uid: s, Gid: s, Username: s}, nil
	}
	return user.Lookup(s)
}

func lookupGroup(s string) (uint32, error) {
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return uint32(n), nil
	}
	g, err := user.LookupGroup(s)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(g.Gid, 10, 32)
	return uint32(n), err
}

// Check adds a KindUser problem to r when the worker does not
// run with the uid and gid childproof started the launch with.
func Check(p proc.FS, r *verify.Report, c *syscall.Credential, worker int) {
	if c == nil {
		return
	}
	uid, gid, err := procIDs(p, worker)
	if err != nil {
		return // gone: the caller sees it exit
	}
	if uid != int(c.Uid) || gid != int(c.Gid) {
		r.Add(verify.KindUser, "the worker (pid %d) runs as uid %d gid %d, not as the spec's uid %d gid %d", worker, uid, gid, c.Uid, c.Gid)
	}
}

// procIDs reads the real uid and gid of pid from /proc/PID/status.
func procIDs(p proc.FS, pid int) (uid, gid int, err error) {
	b, err := os.ReadFile(p.Path(pid, "status"))
	if err != nil {
		return 0, 0, err
	}
	uid, gid = -1, -1
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Uid:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				uid, _ = strconv.Atoi(f[0])
			}
		}
		if v, ok := strings.CutPrefix(line, "Gid:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				gid, _ = strconv.Atoi(f[0])
			}
		}
	}
	return uid, gid, nil
}

// CheckLaunch adds to r a KindUser problem when the worker pid of launch l
// does not run as l's user and group (verify SPEC, Launch.Verify); a
// launch without user and group, or whose user does not resolve here, is
// not checked.
func CheckLaunch(p proc.FS, l *spec.Launch, pid int, r *verify.Report) {
	if l.User == "" && l.Group == "" {
		return
	}
	c, err := resolveCredential(l)
	if err != nil {
		return
	}
	n := len(r.Problems)
	Check(p, r, c, pid)
	if len(r.Problems) > n {
		r.Verified = false
		r.SetOutcome(r.Judged())
	}
}
