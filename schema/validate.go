package schema

import (
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-playground/validator/v10"
)

// WrapperRules are the rule names forbid_wrappers accepts.
var WrapperRules = []string{"login-shell", "interactive-shell", "env-reset"}

// isEnvName reports whether s matches ^[A-Za-z_][A-Za-z0-9_]*$. It and
// isLaunchName are loops rather than regexps: compiling the {0,63} repeat
// at package init cost every childproof command 0.4 ms.
func isEnvName(s string) bool {
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

// The raw structs mirror the HCL blocks; their validate tags carry the
// constraints, their hcl tags the names diagnostics use.
type rawLaunch struct {
	Name           string            `hcl:"name" validate:"launchname"`
	Command        []string          `hcl:"command" validate:"required_without=Dispatch,excluded_with=Dispatch,omitnil,min=1,dive,required,nonul"`
	Dispatch       []string          `hcl:"dispatch" validate:"omitnil,min=1,dive,required,nonul"`
	Dir            string            `hcl:"dir" validate:"nonul"`
	EnvFile        string            `hcl:"env_file" validate:"nonul"`
	Inherit        []string          `hcl:"inherit" validate:"dive,envname"`
	Env            map[string]string `hcl:"env" validate:"dive,keys,envname,endkeys,nonul"`
	Require        []string          `hcl:"require" validate:"dive,envname"`
	ForbidWrappers []string          `hcl:"forbid_wrappers" validate:"dive,wrapperrule"`
	Attempts       *int              `hcl:"attempts" validate:"omitnil,min=1,max=100"`
	OnStale        string            `hcl:"on_stale" validate:"omitempty,oneof=replace fail"`
	Worker         *rawWorker        `hcl:"worker" validate:"omitnil"`
	Ports          []rawPort         `hcl:"port" validate:"dive"`
	Ready          *rawReady         `hcl:"ready" validate:"omitnil"`
}

type rawWorker struct {
	Comm string `hcl:"comm" validate:"omitempty,maxbytes=15,nonul"`
	Exe  string `hcl:"exe" validate:"omitempty,excluded_with=Comm,abspath,nonul"`
}

type rawPort struct {
	Name               string `hcl:"name" validate:"launchname"`
	Number             int    `hcl:"number" validate:"min=1,max=65535"`
	Address            string `hcl:"address" validate:"omitempty,ipaddr"`
	AllowAllInterfaces bool   `hcl:"allow_all_interfaces"`
}

type rawReady struct {
	HTTP    string `hcl:"http" validate:"omitempty,startswith=/,printascii,excludes= "`
	Timeout string `hcl:"timeout" validate:"omitempty,duration"`
}

var validate = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string { return f.Tag.Get("hcl") })
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(v.RegisterValidation("envname", func(fl validator.FieldLevel) bool { return isEnvName(fl.Field().String()) }))
	must(v.RegisterValidation("launchname", func(fl validator.FieldLevel) bool { return isLaunchName(fl.Field().String()) }))
	must(v.RegisterValidation("nonul", func(fl validator.FieldLevel) bool { return !strings.ContainsRune(fl.Field().String(), 0) }))
	must(v.RegisterValidation("abspath", func(fl validator.FieldLevel) bool { return filepath.IsAbs(fl.Field().String()) }))
	must(v.RegisterValidation("maxbytes", func(fl validator.FieldLevel) bool {
		n, err := strconv.Atoi(fl.Param())
		return err == nil && len(fl.Field().String()) <= n
	}))
	must(v.RegisterValidation("duration", func(fl validator.FieldLevel) bool {
		d, err := time.ParseDuration(fl.Field().String())
		return err == nil && d > 0
	}))
	must(v.RegisterValidation("ipaddr", func(fl validator.FieldLevel) bool {
		a, err := netip.ParseAddr(fl.Field().String())
		return err == nil && a.Zone() == ""
	}))
	must(v.RegisterValidation("wrapperrule", func(fl validator.FieldLevel) bool {
		s := fl.Field().String()
		for _, r := range WrapperRules {
			if s == r {
				return true
			}
		}
		return false
	}))
	v.RegisterStructValidation(func(sl validator.StructLevel) {
		p := sl.Current().Interface().(rawPort)
		if a, err := netip.ParseAddr(p.Address); err == nil && a.IsUnspecified() && !p.AllowAllInterfaces {
			sl.ReportError(p.Address, "address", "Address", "allinterfaces", "")
		}
	}, rawPort{})
	return v
})

// fieldProblem is one failed constraint, located by its namespace
// ("port[0].number") and explained in words.
type fieldProblem struct {
	ns, summary, detail string
}

// validateLaunch runs the validator over r and explains each failure.
func validateLaunch(r *rawLaunch) []fieldProblem {
	err := validate().Struct(r)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return []fieldProblem{{summary: "Invalid launch", detail: err.Error()}}
	}
	var out []fieldProblem
	for _, fe := range verrs {
		ns := fe.Namespace()
		if i := strings.IndexByte(ns, '.'); i >= 0 {
			ns = ns[i+1:]
		}
		s, d := explain(ns, fe)
		out = append(out, fieldProblem{ns: ns, summary: s, detail: d})
	}
	return out
}

// explain turns a validator failure into a diagnostic summary and detail.
func explain(ns string, fe validator.FieldError) (string, string) {
	field := fe.Field() // the hcl name, with [i] for dive elements
	base := field
	if i := strings.IndexByte(base, '['); i >= 0 {
		base = base[:i]
	}
	val := fe.Value()
	switch fe.Tag() {
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
		default:
			return "Empty " + base, fmt.Sprintf("%s must not be empty", base)
		}
	case "required":
		return "Empty " + base + " element", fmt.Sprintf("%s has an empty string; every element needs a value", ns)
	case "nonul":
		return "Invalid value", fmt.Sprintf("%s contains a NUL byte", ns)
	case "envname":
		return "Invalid variable name", fmt.Sprintf("%q is not a valid environment variable name (letters, digits and _, not starting with a digit)", val)
	case "launchname":
		what := "launch"
		if strings.HasPrefix(ns, "port") {
			what = "port"
		}
		return "Invalid " + what + " name", fmt.Sprintf("%s name %q must start with a letter or digit and use only letters, digits, '.', '_' and '-' (at most 64)", what, val)
	case "wrapperrule":
		return "Unknown wrapper rule", fmt.Sprintf("%q is not a wrapper rule; forbid_wrappers takes %s", val, strings.Join(WrapperRules, ", "))
	case "oneof":
		return "Invalid on_stale", fmt.Sprintf("on_stale must be \"replace\" or \"fail\", got %q", val)
	case "maxbytes":
		return "Worker comm too long", fmt.Sprintf("comm %q is %d bytes; the kernel keeps only the first 15 bytes of /proc/PID/comm, so it could never match — use the first 15 bytes or exe", val, len(fmt.Sprint(val)))
	case "abspath":
		return "Relative worker exe", fmt.Sprintf("exe %q must be an absolute path: /proc/PID/exe is always absolute", val)
	case "ipaddr":
		return "Invalid address", fmt.Sprintf("address %q is not an IP address like 127.0.0.1 or ::1", val)
	case "allinterfaces":
		return "Bind to all interfaces", fmt.Sprintf("address %s listens on every interface; write allow_all_interfaces = true in this port block if that is meant, or use 127.0.0.1", val)
	case "duration":
		return "Invalid duration", fmt.Sprintf("timeout %q is not a positive Go duration like 10s, 1m30s or 500ms", val)
	case "startswith", "printascii", "excludes":
		return "Invalid readiness path", fmt.Sprintf("ready.http %q must be a URL path starting with / (printable ASCII, no spaces)", val)
	}
	return "Invalid value", fmt.Sprintf("%s fails the %q constraint", ns, fe.Tag())
}

func deref(v any) any {
	if p, ok := v.(*int); ok && p != nil {
		return *p
	}
	return v
}
