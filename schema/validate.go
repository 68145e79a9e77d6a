package schema

import (
	"errors"
	"net/netip"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-playground/validator/v10"

	"github.com/childproof/childproof/internal/specrule"
	"github.com/childproof/childproof/internal/wrapper"
	"github.com/hashicorp/hcl/v2"
)

// WrapperRules are the rule names forbid_wrappers accepts.
var WrapperRules = wrapper.Rules

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
		"launchname":   str(specrule.IsLaunchName),
		"envname":      str(specrule.IsEnvName),
		"inheritentry": str(specrule.IsInheritEntry),
		"wrapperrule":  str(wrapper.IsRule),
		"nonul":        str(func(s string) bool { return !strings.Contains(s, "\x00") }),
		"account":      str(specrule.IsAccount),
		// abspath: a path on the Linux machine the worker runs on, also when
		// the spec is checked on Windows.
		"abspath": str(path.IsAbs),
		// program: not empty (required would pass any non-nil pointer).
		"program":    str(func(s string) bool { return s != "" }),
		"slurmtime":  str(specrule.IsSlurmTime),
		"stopsignal": str(func(s string) bool { return slices.Contains(StopSignals, s) }),
		// sbatchword: one word of printable ASCII, as an #SBATCH line needs.
		"sbatchword": str(func(s string) bool { return specrule.IsPrintASCII(s) && !strings.Contains(s, " ") }),
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
		_, hidden := f.val.(hiddenValue)
		s, d := specrule.Explain(specrule.Fail{NS: f.ns, Field: f.field, Tag: f.tag, Val: f.val, Hidden: hidden})
		out[i] = fieldProblem{ns: f.ns, summary: s, detail: d}
	}
	return out
}
