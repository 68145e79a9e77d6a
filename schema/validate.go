package schema

import (
	"errors"
	"fmt"
	"net/netip"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-playground/validator/v10"

	"github.com/childproof/childproof/internal/wrapper"
	"github.com/hashicorp/hcl/v2"
)

// WrapperRules are the rule names forbid_wrappers accepts.
var WrapperRules = wrapper.Rules

// IsEnvName reports whether s is a valid environment variable name,
// ^[A-Za-z_][A-Za-z0-9_]*$: the one rule for env keys, inherit, require,
// secret, alias names and --set.
func IsEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// isLaunchName reports whether s matches ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$.
func isLaunchName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || i > 0 && (c == '_' || c == '.' || c == '-')) {
			return false
		}
	}
	return true
}

// The raw structs mirror the HCL blocks. Their hcl tags name the parts
// diagnostics point at (the validator reports a field by its hcl name, so
// a FieldError's namespace, "port[0].number", is the part's key in the
// loader's source ranges); their validate tags are the field constraints,
// checked by go-playground/validator/v10 with the custom validations
// registered in newValidator.
type rawLaunch struct {
	Name    string   `hcl:"name" validate:"launchname"`
	Command []string `hcl:"command" validate:"required_without=Dispatch,excluded_with=Dispatch,omitnil,min=1,dive,nonul"`
	// CommandProgram is Command[0] when only command is set (validateLaunch
	// fills it): an empty argument is legitimate (redis-server --save ""),
	// only the program needs a value. A field of its own, after command's
	// elements, so its problem comes after theirs.
	CommandProgram  *string           `hcl:"command[0]" validate:"omitnil,program"`
	Dispatch        []string          `hcl:"dispatch" validate:"omitnil,min=1,dive,nonul"`
	DispatchProgram *string           `hcl:"dispatch[0]" validate:"omitnil,program"` // Dispatch[0], as CommandProgram
	Dir             string            `hcl:"dir" validate:"nonul"`
	EnvFile         string            `hcl:"env_file" validate:"nonul"`
	Inherit         []string          `hcl:"inherit" validate:"dive,inheritentry"`
	Env             map[string]string `hcl:"env" validate:"dive,keys,envname,endkeys,nonul"`
	Require         []string          `hcl:"require" validate:"dive,envname"`
	ForbidWrappers  []string          `hcl:"forbid_wrappers" validate:"dive,wrapperrule"`
	Secret          []string          `hcl:"secret" validate:"dive,envname"`
	Volatile        []string          `hcl:"volatile" validate:"dive,inheritentry"`
	DependsOn       []string          `hcl:"depends_on"` // checked against the file's launches (depends.go)
	Attempts        *int              `hcl:"attempts" validate:"omitnil,min=1,max=100"`
	OnStale         string            `hcl:"on_stale" validate:"omitempty,oneof=replace fail"`
	User            string            `hcl:"user" validate:"omitempty,account"`
	Group           string            `hcl:"group" validate:"omitempty,account"`
	Worker          *rawWorker        `hcl:"worker" validate:"omitnil"`
	Roles           []rawRole         `hcl:"worker" validate:"dive"`
	Ports           []rawPort         `hcl:"port" validate:"dive"`
	Ready           *rawReady         `hcl:"ready" validate:"omitnil"`
	Restart         *rawRestart       `hcl:"restart" validate:"omitnil"`
	Slurm           *rawSlurm         `hcl:"slurm" validate:"omitnil"`
	Stop            *rawStop          `hcl:"stop" validate:"omitnil"`
	Oneshot         bool              `hcl:"oneshot"`
}

type rawStop struct {
	Signal  string `hcl:"signal" validate:"omitempty,stopsignal"`
	Timeout string `hcl:"timeout" validate:"omitempty,duration"`
}

type rawRestart struct {
	Policy  string `hcl:"policy" validate:"oneof=never on-failure always"`
	Max     *int   `hcl:"max" validate:"omitnil,min=1,max=1000"`
	Backoff string `hcl:"backoff" validate:"omitempty,duration"`
}

type rawSlurm struct {
	Partition string `hcl:"partition" validate:"omitempty,sbatchword"`
	Gres      string `hcl:"gres" validate:"omitempty,sbatchword"`
	Time      string `hcl:"time" validate:"omitempty,slurmtime"`
	// Nodes and TasksPerNode shape a job spread over several nodes.
	Nodes        *int `hcl:"nodes" validate:"omitnil,min=1,max=4096"`
	TasksPerNode *int `hcl:"ntasks_per_node" validate:"omitnil,min=1,max=1024"`
}

// rawRole is a labelled worker "NAME" block.
type rawRole struct {
	Name  string   `hcl:"name" validate:"launchname"`
	Comm  string   `hcl:"comm" validate:"omitempty,maxbytes=15,nonul"`
	Exe   string   `hcl:"exe" validate:"omitempty,excluded_with=Comm,abspath,nonul"`
	Count *int     `hcl:"count" validate:"omitnil,min=1,max=1024"`
	Ports []string `hcl:"ports"`
}

type rawWorker struct {
	Comm string `hcl:"comm" validate:"omitempty,maxbytes=15,nonul"`
	Exe  string `hcl:"exe" validate:"omitempty,excluded_with=Comm,abspath,nonul"`
	// Count is the number of worker processes (ranks) of the job.
	Count *int `hcl:"count" validate:"omitnil,min=1,max=1024"`
}

// rawPort's address is also checked against allow_all_interfaces
// (allInterfaces, a struct-level validation: after the fields).
type rawPort struct {
	Name               string `hcl:"name" validate:"launchname"`
	Number             int    `hcl:"number" validate:"min=1,max=65535"`
	Address            string `hcl:"address" validate:"omitempty,ipaddr"`
	AllowAllInterfaces bool   `hcl:"allow_all_interfaces"`
}

type rawReady struct {
	HTTP    string   `hcl:"http" validate:"omitempty,startswith=/,printascii,excludes= "`
	Exec    []string `hcl:"exec"`
	Log     string   `hcl:"log"`
	Status  []int    `hcl:"status"`
	Timeout string   `hcl:"timeout" validate:"omitempty,duration"`
}

// validate is the validator, built on first use: registering the
// structs' tags costs every command that reads a spec, and only those.
var validate = sync.OnceValue(newValidator)

// newValidator builds the validator for the raw structs: fields named by
// their hcl tags, and the validations the library lacks.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string { return f.Tag.Get("hcl") })
	str := func(ok func(string) bool) validator.Func {
		return func(fl validator.FieldLevel) bool { return ok(fl.Field().String()) }
	}
	for tag, fn := range map[string]validator.Func{
		"launchname":   str(isLaunchName),
		"envname":      str(IsEnvName),
		"inheritentry": str(isInheritEntry),
		"wrapperrule":  str(wrapper.IsRule),
		"nonul":        str(func(s string) bool { return !strings.Contains(s, "\x00") }),
		"account":      str(isAccount),
		// abspath: a path on the Linux machine the worker runs on, also when
		// the spec is checked on Windows.
		"abspath": str(path.IsAbs),
		// program: not empty (required would pass any non-nil pointer).
		"program":    str(func(s string) bool { return s != "" }),
		"slurmtime":  str(isSlurmTime),
		"stopsignal": str(func(s string) bool { return slices.Contains(StopSignals, s) }),
		// sbatchword: one word of printable ASCII, as an #SBATCH line needs.
		"sbatchword": str(func(s string) bool { return isPrintASCII(s) && !strings.Contains(s, " ") }),
		// duration: a positive Go duration.
		"duration": str(func(s string) bool {
			d, err := time.ParseDuration(s)
			return err == nil && d > 0
		}),
		// ipaddr: an IP address without a zone.
		"ipaddr": str(func(s string) bool {
			a, err := netip.ParseAddr(s)
			return err == nil && a.Zone() == ""
		}),
		// maxbytes=N: at most N bytes (max counts runes).
		"maxbytes": func(fl validator.FieldLevel) bool {
			n, err := strconv.Atoi(fl.Param())
			return err == nil && len(fl.Field().String()) <= n
		},
	} {
		if err := v.RegisterValidation(tag, fn); err != nil {
			panic(err) // a tag name the library refuses: a programming error
		}
	}
	v.RegisterStructValidation(allInterfaces, rawPort{})
	return v
}

// allInterfaces refuses a port address that listens on every interface
// (0.0.0.0, ::) unless the port block allows it.
func allInterfaces(sl validator.StructLevel) {
	p := sl.Current().Interface().(rawPort)
	if a, err := netip.ParseAddr(p.Address); err == nil && a.IsUnspecified() && !p.AllowAllInterfaces {
		sl.ReportError(p.Address, "address", "Address", "allinterfaces", "")
	}
}

// fieldProblem is one failed constraint, located by its namespace
// ("port[0].number") and explained in words.
type fieldProblem struct {
	ns, summary, detail string
}

// fieldFail is one failed constraint before it is explained: the
// namespace, the field's hcl name (with [i] for list elements), the
// constraint's tag and the offending value.
type fieldFail struct {
	ns, field, tag string
	val            any
}

// isSlurmTime reports whether s is a SLURM time limit: MM, MM:SS,
// HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, each part one or more digits.
func isSlurmTime(s string) bool {
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

func isPrintASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// validateLaunch checks r's constraints (the validate tags of the raw
// structs) and explains each failure, in the order of the fields (an env
// map's keys sorted). A value for which hide returns true came from
// env() or file(): the explanation names its source range instead (nil
// hides nothing).
func validateLaunch(r *rawLaunch, hide func(ns string) (hcl.Range, bool)) []fieldProblem {
	c := *r
	c.CommandProgram, c.DispatchProgram = nil, nil
	if len(c.Command) > 0 && c.Dispatch == nil {
		c.CommandProgram = &c.Command[0]
	}
	if len(c.Dispatch) > 0 {
		c.DispatchProgram = &c.Dispatch[0]
	}
	err := validate().Struct(&c)
	if err == nil {
		return nil
	}
	var errs validator.ValidationErrors
	if !errors.As(err, &errs) {
		return []fieldProblem{{summary: "Invalid launch", detail: err.Error()}}
	}
	fails := make([]fieldFail, len(errs))
	for i, fe := range errs {
		ns := fe.Namespace()
		ns = ns[strings.IndexByte(ns, '.')+1:] // without "rawLaunch."
		fails[i] = fieldFail{ns: ns, field: fe.Field(), tag: fe.Tag(), val: fe.Value()}
	}
	// The validator visits a map in Go's random order: the problems of
	// env's keys, which come together, are put in the keys' order.
	envKey := func(f fieldFail) (string, bool) {
		if k, ok := strings.CutPrefix(f.ns, "env["); ok && strings.HasSuffix(k, "]") {
			return k[:len(k)-1], true
		}
		return "", false
	}
	for i := 0; i < len(fails); i++ {
		if _, ok := envKey(fails[i]); !ok {
			continue
		}
		j := i
		for j < len(fails) {
			if _, ok := envKey(fails[j]); !ok {
				break
			}
			j++
		}
		slices.SortStableFunc(fails[i:j], func(a, b fieldFail) int {
			ka, _ := envKey(a)
			kb, _ := envKey(b)
			return strings.Compare(ka, kb)
		})
		i = j
	}
	out := make([]fieldProblem, len(fails))
	for i, f := range fails {
		if hide != nil {
			if rng, ok := hide(f.ns); ok {
				f.val = hiddenValue{rng}
			}
		}
		s, d := explain(f)
		out[i] = fieldProblem{ns: f.ns, summary: s, detail: d}
	}
	return out
}

// explain turns a failed constraint into a diagnostic summary and detail.
func explain(fe fieldFail) (string, string) {
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
			return "Invalid attempts", fmt.Sprintf("attempts must be between 1 and 100, got %v", deref(val))
		case "max":
			return "Invalid restart max", fmt.Sprintf("restart max must be between 1 and 1000, got %v", deref(val))
		case "nodes":
			return "Invalid slurm nodes", fmt.Sprintf("slurm nodes must be between 1 and 4096, got %v", deref(val))
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
	case "stopsignal":
		return "Unknown stop signal", fmt.Sprintf("stop signal %q is not one of %s", val, strings.Join(StopSignals, ", "))
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

func deref(v any) any {
	if p, ok := v.(*int); ok && p != nil {
		return *p
	}
	return v
}

// isAccount reports whether s can name a user or group: a name as
// useradd/groupadd accept it (at most 32 bytes, a trailing '$' for a
// machine account), or a numeric id below 2^32-1.
func isAccount(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return n < 1<<32-1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case (c >= '0' && c <= '9' || c == '.' || c == '-') && i > 0:
		case c == '$' && i == len(s)-1 && i > 0:
		default:
			return false
		}
	}
	return true
}
