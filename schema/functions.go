package schema

import (
	"path/filepath"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// sensitive marks cty values that came from the caller's environment or a
// file: commands must not print them.
type sensitiveMark struct{}

var sensitive = sensitiveMark{}

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
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam:    &function.Parameter{Name: "default", Type: cty.String},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, function.NewArgErrorf(2, "env takes a name and at most one default")
			}
			name := args[0].AsString()
			if !isEnvName(name) {
				return cty.NilVal, function.NewArgErrorf(0, "%q is not a valid environment variable name", name)
			}
			if v, ok := l.lookup(name); ok {
				if !utf8.ValidString(v) {
					return cty.NilVal, function.NewArgErrorf(0, "the value of %s is not valid UTF-8", name)
				}
				return cty.StringVal(v).Mark(sensitive), nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			return cty.NilVal, function.NewArgErrorf(0, "environment variable %s is not set and env() has no default; export it, or write env(%q, \"DEFAULT\")", name, name)
		},
	})
}

func (l *loader) fileFunc() function.Function {
	return function.New(&function.Spec{
		Description: "The contents of a file, relative to the spec file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			if p == "" {
				return cty.NilVal, function.NewArgErrorf(0, "file() needs a path")
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(l.dir, p)
			}
			b, err := readLimited(p)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "cannot read %s", oneLineErr(err))
			}
			if !utf8.Valid(b) {
				return cty.NilVal, function.NewArgErrorf(0, "%s is not valid UTF-8 text", p)
			}
			return cty.StringVal(string(b)).Mark(sensitive), nil
		},
	})
}
