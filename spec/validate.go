package spec

import (
	"fmt"
	"net/netip"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/specrule"
	"github.com/childproof/childproof/internal/wrapper"
)

// Validate checks a Launch by the rules a spec file's launch block is
// checked by, for a Launch built in Go. Zero values stand for the
// defaults, as they do everywhere in a Launch (a port's name may be
// empty). It returns nil or an *InvalidError.
//
// The checks are written out by hand, field by field in the order of
// Launch's fields, so that a program that builds a Launch links no
// struct validator; package schema's loader checks a spec file's blocks
// with go-playground/validator, and schema's TestValidateGoDifferential
// holds the two to the same problems, words and order.
func (l *Launch) Validate() error {
	var c checks
	c.fields(l)
	ps := c.explained()
	if !l.Ready.IsZero() {
		ps = append(ps, specrule.ReadyProblems(specrule.Ready{HTTP: l.Ready.HTTP, Exec: l.Ready.Exec, Log: l.Ready.Log, Status: l.Ready.Status}, false)...)
	}
	ps = append(ps, oneshotProblems(l)...)
	roles := make([]specrule.Role, len(l.Roles))
	for i, r := range l.Roles {
		roles[i] = specrule.Role{Name: r.Name, Comm: r.Worker.Comm, Exe: r.Worker.Exe, Count: r.Worker.Count, Ports: r.Ports}
	}
	ports := make([]string, len(l.Ports))
	for i, p := range l.Ports {
		ports[i] = p.Name
	}
	ps = append(ps, specrule.RoleProblems(roles, ports)...)
	if len(ps) == 0 {
		return nil
	}
	e := &InvalidError{Launch: l.Name}
	for _, p := range ps {
		e.Problems = append(e.Problems, FieldProblem{Field: p.NS, Summary: p.Summary, Detail: p.Detail})
	}
	return e
}

// checks collects failed constraints in the order they are found.
type checks []specrule.Fail

func (c *checks) fail(ns, field, tag string, val any) {
	*c = append(*c, specrule.Fail{NS: ns, Field: field, Tag: tag, Val: val})
}

// each checks every element of a list with ok, reporting tag for those
// that fail.
func (c *checks) each(name string, v []string, tag string, ok func(string) bool) {
	for i, e := range v {
		if !ok(e) {
			f := fmt.Sprintf("%s[%d]", name, i)
			c.fail(f, f, tag, e)
		}
	}
}

func noNUL(s string) bool { return !strings.Contains(s, "\x00") }

// positiveDuration is the rule of a duration written as text: a positive
// Go duration.
func positiveDuration(d time.Duration) bool {
	p, err := time.ParseDuration(d.String())
	return err == nil && p > 0
}

// rangeInt checks an optional number (0: unset) against [lo, hi].
func (c *checks) rangeInt(ns, field string, v, lo, hi int) {
	switch {
	case v == 0:
	case v < lo:
		c.fail(ns, field, "min", v)
	case v > hi:
		c.fail(ns, field, "max", v)
	}
}

// fields checks each field's own constraints.
func (c *checks) fields(l *Launch) {
	if !specrule.IsLaunchName(l.Name) {
		c.fail("name", "name", "launchname", l.Name)
	}
	c.argv("command", l.Command, l.Dispatch)
	if l.Dispatch != nil {
		if len(l.Dispatch) == 0 {
			c.fail("dispatch", "dispatch", "min", l.Dispatch)
		} else {
			c.each("dispatch", l.Dispatch, "nonul", noNUL)
			if l.Dispatch[0] == "" {
				c.fail("dispatch[0]", "dispatch[0]", "program", "")
			}
		}
	}
	if !noNUL(l.Dir) {
		c.fail("dir", "dir", "nonul", l.Dir)
	}
	if !noNUL(l.EnvFile) {
		c.fail("env_file", "env_file", "nonul", l.EnvFile)
	}
	c.each("inherit", l.Inherit, "inheritentry", specrule.IsInheritEntry)
	keys := make([]string, 0, len(l.Env))
	for k := range l.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		f := "env[" + k + "]"
		if !specrule.IsEnvName(k) {
			c.fail(f, f, "envname", k)
		}
		if !noNUL(l.Env[k]) {
			c.fail(f, f, "nonul", l.Env[k])
		}
	}
	c.each("require", l.Require, "envname", specrule.IsEnvName)
	c.each("forbid_wrappers", l.ForbidWrappers, "wrapperrule", wrapper.IsRule)
	c.each("secret", l.Secret, "envname", specrule.IsEnvName)
	c.each("volatile", l.Volatile, "inheritentry", specrule.IsInheritEntry)
	c.rangeInt("attempts", "attempts", l.Attempts, 1, 100)
	if l.OnStale != "" && l.OnStale != StaleReplace && l.OnStale != StaleFail {
		c.fail("on_stale", "on_stale", "oneof", string(l.OnStale))
	}
	for _, a := range []struct{ name, v string }{{"user", l.User}, {"group", l.Group}} {
		if a.v != "" && !specrule.IsAccount(a.v) {
			c.fail(a.name, a.name, "account", a.v)
		}
	}
	if l.Worker != (Worker{}) {
		c.worker("worker.", l.Worker)
	}
	for i, p := range l.Ports {
		c.port(i, p)
	}
	if !l.Ready.IsZero() {
		c.ready(l.Ready)
	}
	if l.Restart != (Restart{}) {
		if !slices.Contains(RestartPolicies, l.Restart.EffectivePolicy()) {
			c.fail("restart.policy", "policy", "oneof", string(l.Restart.Policy))
		}
		c.rangeInt("restart.max", "max", l.Restart.Max, 1, 1000)
		if b := l.Restart.Backoff; b != 0 && !positiveDuration(b) {
			c.fail("restart.backoff", "backoff", "duration", b.String())
		}
	}
	if l.Slurm != (Slurm{}) {
		for _, f := range []struct{ name, v string }{{"partition", l.Slurm.Partition}, {"gres", l.Slurm.Gres}} {
			if f.v != "" && (!specrule.IsPrintASCII(f.v) || strings.Contains(f.v, " ")) {
				c.fail("slurm."+f.name, f.name, "sbatchword", f.v)
			}
		}
		if t := l.Slurm.Time; t != "" && !specrule.IsSlurmTime(t) {
			c.fail("slurm.time", "time", "slurmtime", t)
		}
		c.rangeInt("slurm.nodes", "nodes", l.Slurm.Nodes, 1, 4096)
		c.rangeInt("slurm.ntasks_per_node", "ntasks_per_node", l.Slurm.TasksPerNode, 1, 1024)
	}
	if l.Stop != (Stop{}) {
		if s := l.Stop.Signal; s != "" && !slices.Contains(StopSignals, s) {
			c.fail("stop.signal", "signal", "stopsignal", s)
		}
		if t := l.Stop.Timeout; t != 0 && !positiveDuration(t) {
			c.fail("stop.timeout", "timeout", "duration", t.String())
		}
	}
}

// argv checks command: exactly one of command and dispatch, a present
// command not empty, no NUL, and a program in element 0 (an empty
// argument after it is legitimate: redis-server --save "").
func (c *checks) argv(name string, v, other []string) {
	switch {
	case v == nil && other == nil:
		c.fail(name, name, "required_without", v)
		return
	case v != nil && other != nil:
		c.fail(name, name, "excluded_with", v)
		return
	case v == nil:
		return
	case len(v) == 0:
		c.fail(name, name, "min", v)
		return
	}
	c.each(name, v, "nonul", noNUL)
	if v[0] == "" {
		c.fail(name+"[0]", name+"[0]", "program", "")
	}
}

// worker checks a selector: comm at most 15 bytes, exe absolute and not
// beside comm, count 1–1024.
func (c *checks) worker(ns string, w Worker) {
	if w.Comm != "" {
		if len(w.Comm) > 15 {
			c.fail(ns+"comm", "comm", "maxbytes", w.Comm)
		} else if !noNUL(w.Comm) {
			c.fail(ns+"comm", "comm", "nonul", w.Comm)
		}
	}
	if w.Exe != "" {
		switch {
		case w.Comm != "":
			c.fail(ns+"exe", "exe", "excluded_with", w.Exe)
		case !path.IsAbs(w.Exe):
			c.fail(ns+"exe", "exe", "abspath", w.Exe)
		case !noNUL(w.Exe):
			c.fail(ns+"exe", "exe", "nonul", w.Exe)
		}
	}
	c.rangeInt(ns+"count", "count", w.Count, 1, 1024)
}

// port checks port i: its name (empty: "port"), number, address, and an
// address on every interface that the port does not allow.
func (c *checks) port(i int, p Port) {
	ns := fmt.Sprintf("port[%d].", i)
	name := p.Name
	if name == "" {
		name = "port"
	}
	if !specrule.IsLaunchName(name) {
		c.fail(ns+"name", "name", "launchname", name)
	}
	if p.Number < 1 {
		c.fail(ns+"number", "number", "min", p.Number)
	} else if p.Number > 65535 {
		c.fail(ns+"number", "number", "max", p.Number)
	}
	if p.Address != "" {
		if a, err := netip.ParseAddr(p.Address); err != nil || a.Zone() != "" {
			c.fail(ns+"address", "address", "ipaddr", p.Address)
		}
	}
	if a, err := netip.ParseAddr(p.Address); err == nil && a.IsUnspecified() && !p.AllowAllInterfaces {
		c.fail(ns+"address", "address", "allinterfaces", p.Address)
	}
}

// ready checks the readiness path and timeout.
func (c *checks) ready(r Ready) {
	if h := r.HTTP; h != "" {
		switch {
		case !strings.HasPrefix(h, "/"):
			c.fail("ready.http", "http", "startswith", h)
		case !specrule.IsPrintASCII(h):
			c.fail("ready.http", "http", "printascii", h)
		case strings.Contains(h, " "):
			c.fail("ready.http", "http", "excludes", h)
		}
	}
	if t := r.Timeout; t != 0 && !positiveDuration(t) {
		c.fail("ready.timeout", "timeout", "duration", t.String())
	}
}

// explained turns the failures into problems.
func (c checks) explained() []specrule.Problem {
	out := make([]specrule.Problem, len(c))
	for i, f := range c {
		s, d := specrule.Explain(f)
		out[i] = specrule.Problem{NS: f.NS, Summary: s, Detail: d}
	}
	return out
}

// oneshotProblems are what a oneshot launch cannot have: a port (it runs
// to completion, serving nothing), a ready block (its readiness is its
// exit 0) and a restart block (it is done once it succeeded).
func oneshotProblems(l *Launch) []specrule.Problem {
	if !l.Oneshot {
		return nil
	}
	var out []specrule.Problem
	if len(l.Ports) > 0 {
		out = append(out, specrule.Problem{NS: "port", Summary: "Port on a oneshot launch", Detail: "a oneshot launch runs to completion and its success is exit 0; it takes no port"})
	}
	if !l.Ready.IsZero() {
		out = append(out, specrule.Problem{NS: "ready", Summary: "Unexpected ready block on a oneshot launch", Detail: "a oneshot launch runs to completion and its success is exit 0; it takes no ready"})
	}
	if l.Restart != (Restart{}) {
		out = append(out, specrule.Problem{NS: "restart", Summary: "Unexpected restart block on a oneshot launch", Detail: "a oneshot launch runs to completion and its success is exit 0; it takes no restart"})
	}
	return out
}
