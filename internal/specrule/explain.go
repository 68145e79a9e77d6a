package specrule

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/childproof/childproof/internal/wrapper"
)

// Explain turns a failed constraint into a diagnostic summary and detail.
func Explain(fe Fail) (string, string) {
	ns := fe.NS
	base := fe.Field // the hcl name, with [i] for list elements
	if i := strings.IndexByte(base, '['); i >= 0 {
		base = base[:i]
	}
	val := fe.Val
	switch fe.Tag {
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
			return "Invalid attempts", fmt.Sprintf("attempts must be between 1 and 100, got %v", deref(val))
		case "max":
			return "Invalid restart max", fmt.Sprintf("restart max must be between 1 and 1000, got %v", deref(val))
		case "nodes":
			return "Invalid slurm nodes", fmt.Sprintf("slurm nodes must be between 1 and 4096, got %v", deref(val))
		case "count":
			return "Invalid worker count", fmt.Sprintf("worker count must be between 1 and 1024, got %v", deref(val))
		case "ntasks_per_node":
			return "Invalid slurm ntasks_per_node", fmt.Sprintf("slurm ntasks_per_node must be between 1 and 1024, got %v", deref(val))
		default:
			return "Empty " + base, fmt.Sprintf("%s must not be empty", base)
		}
	case "program":
		return "Empty program", fmt.Sprintf("%s is empty: the first element names the program to run (later elements may be empty strings)", ns)
	case "nonul":
		return "Invalid value", fmt.Sprintf("%s contains a NUL byte", ns)
	case "account":
		return "Invalid " + ns, fmt.Sprintf("%s %q is neither a user or group name (letters, digits, '_', '.', '-', at most 32, optionally ending in '$') nor a numeric id", ns, val)
	case "envname":
		return "Invalid variable name", fmt.Sprintf("%q is not a valid environment variable name (letters, digits and _, not starting with a digit)", val)
	case "inheritentry":
		return "Invalid inherit entry", fmt.Sprintf("%q is neither a variable name nor a glob pattern over names (\"CUDA_*\", \"NCCL_*\", \"*\")", val)
	case "launchname":
		what := "launch"
		switch {
		case strings.HasPrefix(ns, "port"):
			what = "port"
		case strings.HasPrefix(ns, "worker["):
			what = "worker role"
		}
		return "Invalid " + what + " name", fmt.Sprintf("%s name %q must start with a letter or digit and use only letters, digits, '.', '_' and '-' (at most 64)", what, val)
	case "wrapperrule":
		return "Unknown wrapper rule", fmt.Sprintf("%q is not a wrapper rule; forbid_wrappers takes %s", val, strings.Join(wrapper.Rules, ", "))
	case "oneof":
		if base == "policy" {
			return "Invalid restart policy", fmt.Sprintf("restart policy must be \"never\", \"on-failure\" or \"always\", got %q", val)
		}
		return "Invalid on_stale", fmt.Sprintf("on_stale must be \"replace\" or \"fail\", got %q", val)
	case "sbatchword":
		return "Invalid slurm " + base, fmt.Sprintf("slurm %s %q must be one word of printable ASCII (it is written on an #SBATCH line)", base, val)
	case "stopsignal":
		return "Unknown stop signal", fmt.Sprintf("stop signal %q is not one of %s", val, strings.Join(StopSignals, ", "))
	case "slurmtime":
		return "Invalid slurm time", fmt.Sprintf("slurm time %q is not a SLURM time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (digits only)", val)
	case "maxbytes":
		if fe.Hidden {
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
	return "Invalid value", fmt.Sprintf("%s fails the %q constraint", ns, fe.Tag)
}

func deref(v any) any {
	if p, ok := v.(*int); ok && p != nil {
		return *p
	}
	return v
}

// Ready is what ReadyProblems judges of a ready block. It is plain data,
// safe for concurrent use while no one changes it.
type Ready struct {
	HTTP   string
	Exec   []string
	Log    string
	Status []int
}

// ReadyProblems reports a ready block that asks for two probes, a status
// without the GET it judges, an exec argv without a program and a log
// pattern that is not an RE2 regular expression (said without the
// pattern when logSecret is true).
func ReadyProblems(r Ready, logSecret bool) []Problem {
	var out []Problem
	var kinds []string
	if r.HTTP != "" {
		kinds = append(kinds, "http")
	}
	if r.Exec != nil {
		kinds = append(kinds, "exec")
	}
	if r.Log != "" {
		kinds = append(kinds, "log")
	}
	if len(kinds) > 1 {
		out = append(out, Problem{NS: "ready." + kinds[1], Summary: "Conflicting readiness probes",
			Detail: "a ready block names one probe: http (a GET), exec (a command that exits 0) or log (a line of output); this one names " + strings.Join(kinds, " and ")})
	}
	if r.Status != nil && r.HTTP == "" {
		out = append(out, Problem{NS: "ready.status", Summary: "Status without an HTTP probe", Detail: "ready.status judges the answer to ready.http's GET: add http = \"/path\", or drop status"})
	}
	switch {
	case r.Exec == nil:
	case len(r.Exec) == 0:
		out = append(out, Problem{NS: "ready.exec", Summary: "Empty readiness command", Detail: "ready.exec is an argv, run without a shell until it exits 0: name at least the program, as in [\"pg_isready\", \"-h\", \"127.0.0.1\"]"})
	case r.Exec[0] == "":
		out = append(out, Problem{NS: "ready.exec[0]", Summary: "Empty readiness command", Detail: "ready.exec's first element is the program to run; it is empty"})
	}
	if r.Log != "" {
		if _, err := regexp.Compile(r.Log); err != nil {
			msg := err.Error()
			if logSecret {
				msg = "the pattern, from the caller's environment, does not compile"
			}
			out = append(out, Problem{NS: "ready.log", Summary: "Invalid log pattern", Detail: "ready.log is an RE2 regular expression (Go's regexp syntax): " + msg})
		}
	}
	return out
}

// WorkerCountDetail says what is wrong with a worker count above one
// without comm or exe: nothing would say which processes are the
// workers. "": nothing.
func WorkerCountDetail(count int, comm, exe string) string {
	if count > 1 && comm == "" && exe == "" {
		return fmt.Sprintf("worker { count = %d } needs comm or exe: they say which processes are the workers (the ranks below an agent of the same program)", count)
	}
	return ""
}

// Role is what RoleProblems judges of a worker role. It is plain data, safe
// for concurrent use while no one changes it.
type Role struct {
	Name      string
	Comm, Exe string
	Count     int
	Ports     []string
}

// RoleProblems are the problems of a launch's worker roles: a role
// without a selector (comm or exe say which processes are the role's), a
// count without one, a role's port that names no declared port (ports are
// the declared ports' labels), and a port two roles list.
func RoleProblems(roles []Role, ports []string) []Problem {
	var out []Problem
	owner := map[string]string{}
	for i, r := range roles {
		if d := WorkerCountDetail(r.Count, r.Comm, r.Exe); d != "" {
			out = append(out, Problem{NS("worker", i, "count"), "Worker count without a selector", d})
		} else if r.Comm == "" && r.Exe == "" {
			out = append(out, Problem{NS("worker", i), "Worker role without a selector", fmt.Sprintf("worker %q needs comm or exe: they say which processes are the role's", r.Name)})
		}
		for _, p := range r.Ports {
			if !slices.Contains(ports, p) {
				var labels []string
				for _, pt := range ports {
					labels = append(labels, strconv.Quote(pt))
				}
				detail := fmt.Sprintf("worker %q lists port %q, but the launch declares no port \"%s\"", r.Name, p, p)
				if len(labels) > 0 {
					detail += "; its ports are " + strings.Join(labels, ", ")
				}
				out = append(out, Problem{NS("worker", i, "ports"), "Unknown port in a worker role", detail})
				continue
			}
			if o, dup := owner[p]; dup {
				out = append(out, Problem{NS("worker", i, "ports"), "Port listed by two worker roles", fmt.Sprintf("port %q is listed by worker %q and worker %q: a port is owned by a process of one role", p, o, r.Name)})
				continue
			}
			owner[p] = r.Name
		}
	}
	return out
}
