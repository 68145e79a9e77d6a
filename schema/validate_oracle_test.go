package schema

// The oracle: a hand-written constraint engine for launches, beside the
// production one (go-playground/validator/v10), kept verbatim (renamed)
// so the differential test (validate_diff_test.go) can hold the
// validator's diagnostics — summary, detail, field and order — to what
// this engine said. The name predicates it calls (IsEnvName,
// isLaunchName, isInheritEntry, wrapper.IsRule) are the spec language's
// definitions, shared with the production engine; the engine around
// them — which check runs when, in what order, with what words — is
// frozen here. Do not edit it to make the differential test pass.

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/childproof/childproof/internal/wrapper"
	"github.com/hashicorp/hcl/v2"
)

// oracleFail is one failed constraint before it is explained: the
// namespace, the field's hcl name (with [i] for list elements), the
// constraint's tag and the offending value.
type oracleFail struct {
	ns, field, tag string
	val            any
}

// oracleConstraints collects failures in the order of the fields.
type oracleConstraints []oracleFail

func (c *oracleConstraints) fail(ns, field, tag string, val any) {
	*c = append(*c, oracleFail{ns: ns, field: field, tag: tag, val: val})
}

// strings checks a list attribute: present (non-nil) lists need at least
// one element when min1, and every element must be non-empty when
// required, and pass each of elem's checks (the first failure per element
// is reported).
func (c *oracleConstraints) list(name string, v []string, min1, required bool, elem ...func(string) (string, bool)) {
	if min1 && v != nil && len(v) == 0 {
		c.fail(name, name, "min", v)
		return
	}
	for i, e := range v {
		f := fmt.Sprintf("%s[%d]", name, i)
		if required && e == "" {
			c.fail(f, f, "required", e)
			continue
		}
		for _, check := range elem {
			if tag, ok := check(e); !ok {
				c.fail(f, f, tag, e)
				break
			}
		}
	}
}

func oracleNoNUL(s string) (string, bool)        { return "nonul", !strings.Contains(s, "\x00") }
func oracleEnvName(s string) (string, bool)      { return "envname", IsEnvName(s) }
func oracleInheritEntry(s string) (string, bool) { return "inheritentry", isInheritEntry(s) }
func oracleWrapperRule(s string) (string, bool)  { return "wrapperrule", wrapper.IsRule(s) }

// oracleIsSlurmTime reports whether s is a SLURM time limit: MM, MM:SS,
// HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, each part one or more digits.
func oracleIsSlurmTime(s string) bool {
	digits := func(p string) bool {
		if p == "" || len(p) > 9 {
			return false
		}
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
		}
		return true
	}
	all := func(ps []string) bool {
		for _, p := range ps {
			if !digits(p) {
				return false
			}
		}
		return true
	}
	if day, rest, ok := strings.Cut(s, "-"); ok {
		ps := strings.Split(rest, ":")
		return digits(day) && len(ps) <= 3 && all(ps)
	}
	ps := strings.Split(s, ":")
	return len(ps) <= 3 && all(ps)
}

func oracleIsPrintASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// oracleValidateLaunch checks r's oracleConstraints (the validate tags of the raw
// structs) and explains each failure, in the order of the fields. A value
// for which hide returns true came from env() or file(): the explanation
// names its source range instead (nil hides nothing).
func oracleValidateLaunch(r *rawLaunch, hide func(ns string) (hcl.Range, bool)) []fieldProblem {
	var c oracleConstraints
	if !isLaunchName(r.Name) {
		c.fail("name", "name", "launchname", r.Name)
	}
	switch {
	case r.Command == nil && r.Dispatch == nil:
		c.fail("command", "command", "required_without", r.Command)
	case r.Command != nil && r.Dispatch != nil:
		c.fail("command", "command", "excluded_with", r.Command)
	default:
		c.list("command", r.Command, true, false, oracleNoNUL)
		if len(r.Command) > 0 && r.Command[0] == "" {
			c.fail("command[0]", "command[0]", "required", "")
		}
	}
	// An empty argument is legitimate (redis-server --save ""); only the
	// program (element 0) needs a value.
	c.list("dispatch", r.Dispatch, true, false, oracleNoNUL)
	if len(r.Dispatch) > 0 && r.Dispatch[0] == "" {
		c.fail("dispatch[0]", "dispatch[0]", "required", "")
	}
	if _, ok := oracleNoNUL(r.Dir); !ok {
		c.fail("dir", "dir", "nonul", r.Dir)
	}
	if _, ok := oracleNoNUL(r.EnvFile); !ok {
		c.fail("env_file", "env_file", "nonul", r.EnvFile)
	}
	c.list("inherit", r.Inherit, false, false, oracleInheritEntry)
	keys := make([]string, 0, len(r.Env))
	for k := range r.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := "env[" + k + "]"
		if !IsEnvName(k) {
			c.fail(f, f, "envname", k)
		}
		if _, ok := oracleNoNUL(r.Env[k]); !ok {
			c.fail(f, f, "nonul", r.Env[k])
		}
	}
	c.list("require", r.Require, false, false, oracleEnvName)
	c.list("forbid_wrappers", r.ForbidWrappers, false, false, oracleWrapperRule)
	c.list("secret", r.Secret, false, false, oracleEnvName)
	if a := r.Attempts; a != nil && *a < 1 {
		c.fail("attempts", "attempts", "min", a)
	} else if a != nil && *a > 100 {
		c.fail("attempts", "attempts", "max", a)
	}
	if r.OnStale != "" && r.OnStale != "replace" && r.OnStale != "fail" {
		c.fail("on_stale", "on_stale", "oneof", r.OnStale)
	}
	if w := r.Worker; w != nil {
		if w.Comm != "" {
			if len(w.Comm) > 15 {
				c.fail("worker.comm", "comm", "maxbytes", w.Comm)
			} else if _, ok := oracleNoNUL(w.Comm); !ok {
				c.fail("worker.comm", "comm", "nonul", w.Comm)
			}
		}
		if w.Exe != "" {
			switch {
			case w.Comm != "":
				c.fail("worker.exe", "exe", "excluded_with", w.Exe)
			case !filepath.IsAbs(w.Exe):
				c.fail("worker.exe", "exe", "abspath", w.Exe)
			case strings.Contains(w.Exe, "\x00"):
				c.fail("worker.exe", "exe", "nonul", w.Exe)
			}
		}
	}
	for i, p := range r.Ports {
		ns := fmt.Sprintf("port[%d].", i)
		if !isLaunchName(p.Name) {
			c.fail(ns+"name", "name", "launchname", p.Name)
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
	if rd := r.Ready; rd != nil {
		if h := rd.HTTP; h != "" {
			switch {
			case !strings.HasPrefix(h, "/"):
				c.fail("ready.http", "http", "startswith", h)
			case !oracleIsPrintASCII(h):
				c.fail("ready.http", "http", "printascii", h)
			case strings.Contains(h, " "):
				c.fail("ready.http", "http", "excludes", h)
			}
		}
		if t := rd.Timeout; t != "" {
			if d, err := time.ParseDuration(t); err != nil || d <= 0 {
				c.fail("ready.timeout", "timeout", "duration", t)
			}
		}
	}
	if rs := r.Restart; rs != nil {
		if !slices.Contains(RestartPolicies, RestartPolicy(rs.Policy)) {
			c.fail("restart.policy", "policy", "oneof", rs.Policy)
		}
		if m := rs.Max; m != nil && *m < 1 {
			c.fail("restart.max", "max", "min", m)
		} else if m != nil && *m > 1000 {
			c.fail("restart.max", "max", "max", m)
		}
		if t := rs.Backoff; t != "" {
			if d, err := time.ParseDuration(t); err != nil || d <= 0 {
				c.fail("restart.backoff", "backoff", "duration", t)
			}
		}
	}
	if sl := r.Slurm; sl != nil {
		for _, f := range []struct{ name, v string }{{"partition", sl.Partition}, {"gres", sl.Gres}} {
			if f.v != "" && (!oracleIsPrintASCII(f.v) || strings.Contains(f.v, " ")) {
				c.fail("slurm."+f.name, f.name, "sbatchword", f.v)
			}
		}
		if sl.Time != "" && !oracleIsSlurmTime(sl.Time) {
			c.fail("slurm.time", "time", "slurmtime", sl.Time)
		}
		if n := sl.Nodes; n != nil && (*n < 1 || *n > 4096) {
			c.fail("slurm.nodes", "nodes", "min", n)
		}
		if n := sl.TasksPerNode; n != nil && (*n < 1 || *n > 1024) {
			c.fail("slurm.ntasks_per_node", "ntasks_per_node", "min", n)
		}
	}
	var out []fieldProblem
	for _, f := range c {
		if hide != nil {
			if rng, ok := hide(f.ns); ok {
				f.val = hiddenValue{rng}
			}
		}
		s, d := oracleExplain(f)
		out = append(out, fieldProblem{ns: f.ns, summary: s, detail: d})
	}
	return out
}

// oracleExplain turns a failed constraint into a diagnostic summary and detail.
func oracleExplain(fe oracleFail) (string, string) {
	ns := fe.ns
	base := fe.field // the hcl name, with [i] for list elements
	if i := strings.IndexByte(base, '['); i >= 0 {
		base = base[:i]
	}
	val := fe.val
	switch fe.tag {
	case "required_without":
		return "Missing command or dispatch", "a launch needs exactly one of command (an argv, exec'd directly) or dispatch (a script run with bash --noprofile --norc); it has neither"
	case "excluded_with":
		if base == "exe" {
			return "Conflicting worker selectors", "worker takes comm or exe, not both"
		}
		return "Conflicting command and dispatch", "command and dispatch cannot both be set: a launch runs either an argv or a dispatch script"
	case "min", "max":
		switch base {
		case "number":
			return "Invalid port number", fmt.Sprintf("port number %v is outside 1–65535", val)
		case "attempts":
			return "Invalid attempts", fmt.Sprintf("attempts must be between 1 and 100, got %v", oracleDeref(val))
		case "max":
			return "Invalid restart max", fmt.Sprintf("restart max must be between 1 and 1000, got %v", oracleDeref(val))
		case "nodes":
			return "Invalid slurm nodes", fmt.Sprintf("slurm nodes must be between 1 and 4096, got %v", oracleDeref(val))
		case "ntasks_per_node":
			return "Invalid slurm ntasks_per_node", fmt.Sprintf("slurm ntasks_per_node must be between 1 and 1024, got %v", oracleDeref(val))
		default:
			return "Empty " + base, fmt.Sprintf("%s must not be empty", base)
		}
	case "required":
		if base == "command" || base == "dispatch" {
			return "Empty program", fmt.Sprintf("%s is empty: the first element names the program to run (later elements may be empty strings)", ns)
		}
		return "Empty " + base + " element", fmt.Sprintf("%s has an empty string; every element needs a value", ns)
	case "nonul":
		return "Invalid value", fmt.Sprintf("%s contains a NUL byte", ns)
	case "envname":
		return "Invalid variable name", fmt.Sprintf("%q is not a valid environment variable name (letters, digits and _, not starting with a digit)", val)
	case "inheritentry":
		return "Invalid inherit entry", fmt.Sprintf("%q is neither a variable name nor a glob pattern over names (\"CUDA_*\", \"NCCL_*\", \"*\")", val)
	case "launchname":
		what := "launch"
		if strings.HasPrefix(ns, "port") {
			what = "port"
		}
		return "Invalid " + what + " name", fmt.Sprintf("%s name %q must start with a letter or digit and use only letters, digits, '.', '_' and '-' (at most 64)", what, val)
	case "wrapperrule":
		return "Unknown wrapper rule", fmt.Sprintf("%q is not a wrapper rule; forbid_wrappers takes %s", val, strings.Join(WrapperRules, ", "))
	case "oneof":
		if base == "policy" {
			return "Invalid restart policy", fmt.Sprintf("restart policy must be \"never\", \"on-failure\" or \"always\", got %q", val)
		}
		return "Invalid on_stale", fmt.Sprintf("on_stale must be \"replace\" or \"fail\", got %q", val)
	case "sbatchword":
		return "Invalid slurm " + base, fmt.Sprintf("slurm %s %q must be one word of printable ASCII (it is written on an #SBATCH line)", base, val)
	case "slurmtime":
		return "Invalid slurm time", fmt.Sprintf("slurm time %q is not a SLURM time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (digits only)", val)
	case "maxbytes":
		if _, hidden := val.(hiddenValue); hidden {
			return "Worker comm too long", fmt.Sprintf("comm %v is longer than 15 bytes; the kernel keeps only the first 15 bytes of /proc/PID/comm, so it could never match — use the first 15 bytes or exe", val)
		}
		return "Worker comm too long", fmt.Sprintf("comm %q is %d bytes; the kernel keeps only the first 15 bytes of /proc/PID/comm, so it could never match — use the first 15 bytes or exe", val, len(fmt.Sprint(val)))
	case "abspath":
		return "Relative worker exe", fmt.Sprintf("exe %q must be an absolute path: /proc/PID/exe is always absolute", val)
	case "ipaddr":
		return "Invalid address", fmt.Sprintf("address %q is not an IP address like 127.0.0.1 or ::1", val)
	case "allinterfaces":
		return "Bind to all interfaces", fmt.Sprintf("address %s listens on every interface; write allow_all_interfaces = true in this port block if that is meant, or use 127.0.0.1", val)
	case "duration":
		return "Invalid duration", fmt.Sprintf("%s %q is not a positive Go duration like 10s, 1m30s or 500ms", base, val)
	case "startswith", "printascii", "excludes":
		return "Invalid readiness path", fmt.Sprintf("ready.http %q must be a URL path starting with / (printable ASCII, no spaces)", val)
	}
	return "Invalid value", fmt.Sprintf("%s fails the %q constraint", ns, fe.tag)
}

func oracleDeref(v any) any {
	if p, ok := v.(*int); ok && p != nil {
		return *p
	}
	return v
}
