package schema

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/childproof/childproof/internal/specrule"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/childproof/childproof/internal/inputfile"
	"github.com/childproof/childproof/redact"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
)

// LoadOptions tunes Load. The zero value reads variables' defaults only and
// the process environment for env(). LoadOptions are safe for concurrent
// use while no one changes them; Loads that share them may call LookupEnv
// and Environ at once.
type LoadOptions struct {
	// Vars are --var K=V assignments, as raw strings; a value that parses as
	// a number or bool takes that type (unless the variable's default is a
	// string, then it stays a string).
	Vars map[string]string
	// LookupEnv answers env(NAME). Nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// MissingProgramOK makes a command[0] that cannot be found here a
	// warning instead of an error: for a spec checked on one machine and
	// run on another (import writes one for a script's machine).
	MissingProgramOK bool
	// Environ lists the caller's environment (NAME=VALUE), for the warning
	// about well-known runtime variables a launch would drop
	// (RuntimeVars). Nil means os.Environ when LookupEnv is nil too, and
	// no such warning otherwise.
	Environ func() []string
	// LaunchesNothing is set by commands that launch nothing (check,
	// verify, explain, stop, logs): there an env() whose variable is unset
	// (and has no default) is an unknown value — the launch's secrets are
	// not needed to read its spec — instead of an error. Parts that hold
	// one are listed in Launch.Unknown and not validated.
	LaunchesNothing bool
	// Launches, when set, names the launches the command starts: only
	// they and what they depend on (depends_on, transitively) are read
	// strictly; every other launch of the file is read as by a command
	// that launches nothing (LaunchesNothing), so that a variable only
	// another launch needs does not fail this one (a SLURM step runs one
	// launch of a shipped spec).
	Launches []string
	// EnvPlaceholders tells that LookupEnv answers placeholders for values
	// resolved on another machine (export: a reference the engine
	// resolves): a dir, env_file, program, dispatch script or worker exe
	// built from env() or file() is a path there, taken as written and not
	// checked here (the placeholder is never joined to a local path).
	EnvPlaceholders bool
	// Context, when it ends (SIGINT, SIGTERM), stops the evaluation of
	// the spec between two expressions (each is bounded by the work
	// budget: see MaxEvalIterations) with an "Interrupted" error. Nil
	// means context.Background.
	Context context.Context
}

func (o LoadOptions) context() context.Context {
	if o.Context == nil {
		return context.Background()
	}
	return o.Context
}

var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "launch", LabelNames: []string{"name"}},
		{Type: "alias", LabelNames: []string{"name"}},
	},
}

// Load reads, decodes and validates the spec file at path. The returned
// map holds every parsed file's bytes so diagnostics can show snippets.
// The File is nil when the diagnostics hold an error; warnings may come
// with a valid File.
func Load(path string, opts LoadOptions) (*File, map[string]*hcl.File, hcl.Diagnostics) {
	src, diags := readSpec(path)
	if diags.HasErrors() {
		return nil, map[string]*hcl.File{}, diags
	}
	return Parse(src, path, opts)
}

// Parse decodes and validates a spec held in memory, as Load does for a
// file: filename names it in diagnostics, and relative paths in it (dir,
// env_file, file(), command[0]) are resolved against its directory.
func Parse(src []byte, filename string, opts LoadOptions) (*File, map[string]*hcl.File, hcl.Diagnostics) {
	if diags := checkText(src, filename); diags.HasErrors() {
		return nil, map[string]*hcl.File{}, diags
	}
	var diags hcl.Diagnostics
	path := filename
	p := hclparse.NewParser()
	f, pd := p.ParseHCL(src, path)
	files := p.Files()
	diags = append(diags, pd...)
	if diags.HasErrors() || f == nil {
		return nil, files, diags
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, files, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot resolve spec path", Detail: err.Error()})
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	l := &loader{path: path, abs: abs, dir: filepath.Dir(abs), lookup: lookup, opts: opts}
	out := l.load(f.Body)
	diags = append(diags, maskDiags(sortDiags(l.diags), l.secrets)...)
	if diags.HasErrors() {
		return nil, files, diags
	}
	for _, la := range out.Launches {
		la.SecretValues = l.secrets
	}
	sum := sha256.Sum256(src)
	out.Hash = hex.EncodeToString(sum[:])
	return out, files, diags
}

// maskDiags is the one masking step of the spec's diagnostics: every
// value env() or file() returned while loading is replaced by <NAME> in
// each diagnostic's summary and detail, also where a message quoted it,
// whatever path put it there (the messages that know they hold one name
// its source range instead: see hiddenValue).
func maskDiags(diags hcl.Diagnostics, secrets []redact.Secret) hcl.Diagnostics {
	if len(secrets) == 0 {
		return diags
	}
	mask := redact.Of(specrule.QuotedToo(secrets), nil)
	for _, d := range diags {
		d.Summary = mask.Text(d.Summary)
		d.Detail = mask.Text(d.Detail)
	}
	return diags
}

// readSpec reads path, refusing what is not a small text file with a
// one-line diagnostic (no source range).
func readSpec(path string) ([]byte, hcl.Diagnostics) {
	fail := func(summary, detail string) ([]byte, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail}}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail("Cannot read spec", oneLineErr(err))
	}
	if fi.IsDir() {
		return fail("Cannot read spec", fmt.Sprintf("%s is a directory, not a spec file", path))
	}
	if !fi.Mode().IsRegular() {
		return fail("Cannot read spec", fmt.Sprintf("%s is not a regular file", path))
	}
	src, err := readLimited(path)
	if err != nil {
		return fail("Cannot read spec", oneLineErr(err))
	}
	return src, nil
}

// checkText refuses what is not HCL text a person writes: NUL bytes,
// invalid UTF-8, nothing at all, or nesting too deep to parse safely.
func checkText(src []byte, path string) hcl.Diagnostics {
	fail := func(summary, detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail}}
	}
	if len(src) > MaxFileSize {
		return fail("Cannot read spec", fmt.Sprintf("%s is larger than %d bytes", path, MaxFileSize))
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return fail("Spec is not a text file", fmt.Sprintf("%s has a NUL byte at offset %d; a spec is HCL text", path, i))
	}
	if !utf8.Valid(src) {
		return fail("Spec is not a text file", fmt.Sprintf("%s is not valid UTF-8; a spec is HCL text", path))
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return fail("Spec is empty", fmt.Sprintf("%s is empty; a spec needs at least one launch block", path))
	}
	if line, col, deep := tooDeep(src); deep {
		r := hcl.Range{Filename: path, Start: hcl.Pos{Line: line, Column: col, Byte: 0}, End: hcl.Pos{Line: line, Column: col + 1}}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Nesting too deep",
			Detail:  fmt.Sprintf("brackets, braces and parentheses nest more than %d deep here; the spec is refused before it is parsed", MaxNesting),
			Subject: &r}}
	}
	if line, col, off, deep := exprTooDeep(src); deep {
		r := hcl.Range{Filename: path, Start: hcl.Pos{Line: line, Column: col, Byte: off}, End: hcl.Pos{Line: line, Column: col + 1, Byte: off + 1}}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Expression too deep",
			Detail:  fmt.Sprintf("operators and brackets nest more than %d deep in this expression; the spec is refused before it is parsed", MaxExprDepth),
			Subject: &r}}
	}
	return nil
}

// MaxNesting bounds how deep (, [ and { may nest in a spec. HCL's parser
// recurses on each level: ~65,000 levels overflowed the Go stack (a fatal
// error, not a diagnostic). Counted over the raw text, strings included,
// which only errs towards refusing a spec no person writes.
const MaxNesting = 256

// tooDeep reports the 1-based line and column (in bytes) where src first
// nests deeper than MaxNesting.
func tooDeep(src []byte) (line, col int, deep bool) {
	depth := 0
	line, start := 1, 0
	for i, c := range src {
		switch c {
		case '\n':
			line, start = line+1, i+1
		case '(', '[', '{':
			depth++
			if depth > MaxNesting {
				return line, i - start + 1, true
			}
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return 0, 0, false
}

// readLimited reads a regular file of at most MaxFileSize bytes, its type
// checked on the open descriptor before any read (inputfile): a FIFO, a
// device or /proc/kmsg is refused, never read.
func readLimited(path string) ([]byte, error) {
	return inputfile.Read(path, MaxFileSize)
}

// oneLineErr strips the Go wrapping noise a *PathError adds, keeping the
// path and the reason.
func oneLineErr(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Path + ": " + pe.Err.Error()
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// loader holds the state of one Load.
type loader struct {
	path   string // as given
	abs    string // absolute
	dir    string // absolute directory of the spec
	lookup func(string) (string, bool)
	opts   LoadOptions
	diags  hcl.Diagnostics
	ctx    *hcl.EvalContext
	// secrets are the values env() and file() returned while loading.
	secrets    []redact.Secret
	secretSeen map[[2]string]bool
	// sensitive holds the source ranges whose value came from env() or
	// file(): an attribute, a list element or a map key.
	sensitive map[hcl.Range]bool
	// unknown holds the source ranges whose value is an unset env() (with
	// LaunchesNothing).
	unknown map[hcl.Range]bool
	// lenient: an unset env() is an unknown value, not an error
	// (LaunchesNothing, or a launch outside LoadOptions.Launches).
	lenient bool
	// programsOptional: the launch being loaded is not one the command
	// acts on (LoadOptions.Launches): a missing program is a warning.
	programsOptional bool
	// interrupted: LoadOptions.Context ended; nothing more is evaluated.
	interrupted bool
	// estimate and spent are the work budget (see MaxEvalIterations):
	// what an expression would cost, and what the evaluated ones did.
	estimate *estimator
	spent    cost
}

// affordable reports whether x may be evaluated: within the work budget,
// and the command not interrupted. Otherwise it adds the diagnostic.
func (l *loader) affordable(x hcl.Expression) bool {
	if err := l.opts.context().Err(); err != nil {
		if !l.interrupted {
			l.interrupted = true
			l.errorf(nil, "Interrupted", "the spec was being read when the command was interrupted (%v)", err)
		}
		return false
	}
	if d := l.estimate.overBudget(x, &l.spent); d != nil {
		l.diags = append(l.diags, d)
		return false
	}
	return true
}

func (l *loader) errorf(rng *hcl.Range, summary, format string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng})
}

func (l *loader) warnf(rng *hcl.Range, summary, format string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng})
}

func (l *loader) load(body hcl.Body) *File {
	content, d := body.Content(rootSchema)
	l.diags = append(l.diags, d...)
	if content == nil {
		return nil
	}
	var vars, launches, aliases []*hcl.Block
	for _, b := range content.Blocks {
		switch b.Type {
		case "variable":
			vars = append(vars, b)
		case "launch":
			launches = append(launches, b)
		case "alias":
			aliases = append(aliases, b)
		}
	}
	l.lenient = l.opts.LaunchesNothing
	l.ctx = &hcl.EvalContext{Functions: l.functions()}
	l.estimate = newEstimator(nil, l.lookup, l.dir)
	values := l.variables(vars)
	l.estimate = newEstimator(values, l.lookup, l.dir)
	l.ctx = &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(values)},
		Functions: l.functions(),
	}
	out := &File{Path: l.path, Aliases: l.aliases(aliases)}
	all := map[string]string{}
	for k, v := range BuiltinAliases {
		all[k] = v
	}
	for k, v := range out.Aliases {
		all[k] = v
	}
	seen := map[string]hcl.Range{}
	strict := strictLaunches(launches, l.opts.Launches, l.estimate)
	for _, b := range launches {
		name := b.Labels[0]
		l.lenient = l.opts.LaunchesNothing || strict != nil && !strict[name]
		// Only the launches the command acts on need their program here.
		l.programsOptional = strict != nil && !strict[name]
		if prev, dup := seen[name]; dup {
			l.errorf(rangePtr(b.LabelRanges[0]), "Duplicate launch name",
				"a launch named %q is already defined at %s; launch names must be unique in a spec", name, shortRange(prev))
			continue
		}
		seen[name] = b.LabelRanges[0]
		if la := l.launch(b, all); la != nil {
			out.Launches = append(out.Launches, la)
		}
	}
	l.lenient = l.opts.LaunchesNothing
	l.programsOptional = false
	l.dependencies(out, seen)
	if len(launches) == 0 && !l.diags.HasErrors() {
		l.errorf(nil, "No launch block", "%s has no launch block; a spec needs at least one", l.path)
	}
	return out
}

var aliasSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "use", Required: true}}}

// aliases decodes alias blocks: alias "NAME" { use = "REAL" }.
func (l *loader) aliases(blocks []*hcl.Block) map[string]string {
	out := map[string]string{}
	seen := map[string]hcl.Range{}
	sch := aliasSchema
	for _, b := range blocks {
		name := b.Labels[0]
		lr := b.LabelRanges[0]
		if !IsEnvName(name) {
			l.errorf(&lr, "Invalid alias name", "%q is not a valid environment variable name (letters, digits and _, not starting with a digit)", name)
			continue
		}
		if prev, dup := seen[name]; dup {
			l.errorf(&lr, "Duplicate alias", "alias %q is already defined at %s", name, shortRange(prev))
			continue
		}
		seen[name] = lr
		c, d := b.Body.Content(sch)
		l.diags = append(l.diags, d...)
		if c == nil {
			continue
		}
		a, ok := c.Attributes["use"]
		if !ok {
			continue
		}
		v, ok := l.str(a)
		if !ok {
			continue
		}
		r := a.Expr.Range()
		var shown any = v
		if l.hiddenAt(r) {
			shown = hiddenValue{r}
		}
		switch {
		case !IsEnvName(v):
			l.errorf(&r, "Invalid alias target", "%q is not a valid environment variable name", shown)
		case v == name:
			l.errorf(&r, "Invalid alias target", "alias %q points at itself", name)
		default:
			out[name] = v
		}
	}
	return out
}

func rangePtr(r hcl.Range) *hcl.Range { return &r }

// shortRange renders r as file:line:col.
func shortRange(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// sortDiags orders diagnostics by position; those without a range first.
func sortDiags(d hcl.Diagnostics) hcl.Diagnostics {
	sort.SliceStable(d, func(i, j int) bool {
		a, b := d[i].Subject, d[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	return d
}

// strictLaunches returns the names of the launch blocks that names (the
// launches a command starts) and their depends_on closure need read
// strictly, or nil when names is empty (every launch). depends_on is
// literal (a list of strings), so it is read here without evaluating
// anything else of the block.
func strictLaunches(blocks []*hcl.Block, names []string, est *estimator) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	deps := map[string][]string{}
	sch := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "depends_on"}}}
	for _, b := range blocks {
		c, _, _ := b.Body.PartialContent(sch)
		if c == nil {
			continue
		}
		a, ok := c.Attributes["depends_on"]
		if !ok || est.overBudget(a.Expr, &cost{}) != nil {
			// Over the budget: decoding the launch reports it.
			continue
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || !v.IsWhollyKnown() || v.IsNull() || !v.CanIterateElements() {
			continue
		}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsKnown() && !e.IsNull() && e.Type() == cty.String {
				deps[b.Labels[0]] = append(deps[b.Labels[0]], e.AsString())
			}
		}
	}
	out := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if out[n] {
			return
		}
		out[n] = true
		for _, d := range deps[n] {
			visit(d)
		}
	}
	for _, n := range names {
		visit(n)
	}
	return out
}

// ReadLaunch reads the launch called name from the spec file at path as a
// command that launches nothing reads it (LoadOptions.LaunchesNothing: an
// env() the caller did not set is unknown; MissingProgramOK; no warning
// about the caller's environment), with vars as the spec's variables. It
// is a launcher.SpecReader: the command sets a launcher.State's ReadSpec
// to it.
func ReadLaunch(path, name string, vars map[string]string) (*Launch, error) {
	f, _, diags := Load(path, LoadOptions{Vars: vars, LaunchesNothing: true, MissingProgramOK: true, Environ: func() []string { return nil }})
	if diags.HasErrors() || f == nil {
		return nil, diags
	}
	return f.Launch(name)
}
