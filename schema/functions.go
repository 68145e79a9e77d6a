package schema

import (
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"github.com/childproof/childproof/internal/inputfile"
	"github.com/childproof/childproof/redact"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// sensitiveMark marks cty values that came from the caller's environment
// or a file: commands must not print them. name is what the value is shown
// as (<name>): the variable's name for env(), "file:PATH" for file().
type sensitiveMark struct{ name string }

// markName returns the name of the first sensitive mark in marks.
func markName(marks cty.ValueMarks) (string, bool) {
	for m := range marks {
		if sm, ok := m.(sensitiveMark); ok {
			return sm.name, true
		}
	}
	return "", false
}

// secretValue remembers a value env() or file() returned, so that every
// output of the file's launches can mask it (see Launch.SecretValues).
func (l *loader) secretValue(name, value string) cty.Value {
	// Once each: a `for` may call env() once per element.
	s := redact.Secret{Name: name, Value: value}
	if !l.secretSeen[[2]string{name, value}] {
		if l.secretSeen == nil {
			l.secretSeen = map[[2]string]bool{}
		}
		l.secretSeen[[2]string{name, value}] = true
		l.secrets = append(l.secrets, s)
	}
	return cty.StringVal(value).Mark(sensitiveMark{name: name})
}

// functions returns the spec's functions: env(NAME[, DEFAULT]) and file(PATH).
func (l *loader) functions() map[string]function.Function {
	return map[string]function.Function{
		"env":  l.envFunc(),
		"file": l.fileFunc(),
	}
}

func (l *loader) envFunc() function.Function {
	return function.New(&function.Spec{
		Description: "The caller's value of an environment variable; an error if unset unless a default is given.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String, AllowMarked: true, AllowUnknown: true}},
		VarParam:    &function.Parameter{Name: "default", Type: cty.String},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, function.NewArgErrorf(2, "env takes a name and at most one default")
			}
			arg, marks := args[0].Unmark()
			if src, secret := markName(marks); secret {
				// env(env("X")): the name would be a secret value,
				// shown in every message about it.
				return cty.NilVal, function.NewArgErrorf(0, "the name given to env() is a secret value (from %s): a variable name must be written literally", src)
			}
			if !arg.IsKnown() {
				return cty.UnknownVal(cty.String), nil
			}
			name := arg.AsString()
			if !IsEnvName(name) {
				return cty.NilVal, function.NewArgErrorf(0, "%q is not a valid environment variable name", name)
			}
			if v, ok := l.lookup(name); ok {
				if !utf8.ValidString(v) {
					return cty.NilVal, function.NewArgErrorf(0, "the value of %s is not valid UTF-8", name)
				}
				return l.secretValue(name, v), nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			if l.lenient {
				// From the caller, not set here: unknown, and secret.
				return cty.UnknownVal(cty.String).Mark(sensitiveMark{name: name}), nil
			}
			return cty.NilVal, function.NewArgErrorf(0, "environment variable %s is not set and env() has no default; export it, or write env(%q, \"DEFAULT\")", name, name)
		},
	})
}

func (l *loader) fileFunc() function.Function {
	return function.New(&function.Spec{
		Description: "The contents of a file, relative to the spec file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String, AllowMarked: true}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			arg, marks := args[0].Unmark()
			p := arg.AsString()
			if src, secret := markName(marks); secret {
				// A path from env() or file() is itself secret: errors
				// name where it came from, and the contents are masked
				// under that name.
				v, err := l.readFile(p)
				if err != nil {
					return cty.NilVal, function.NewArgErrorf(0, "cannot read the file named by %s", src)
				}
				return l.secretValue("file:"+src, v).WithMarks(marks), nil
			}
			v, err := l.readFile(p)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "%s", err)
			}
			return l.secretValue("file:"+p, v), nil
		},
	})
}

// readFile reads file()'s path, relative to the spec's directory.
func (l *loader) readFile(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("file() needs a path")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.dir, p)
	}
	b, err := readLimited(p)
	if ie := (*inputfile.Error)(nil); errors.As(err, &ie) {
		return "", err // "PATH is not a regular file (a FIFO)"
	}
	if err != nil {
		return "", fmt.Errorf("cannot read %s", oneLineErr(err))
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not valid UTF-8 text", p)
	}
	return string(b), nil
}
