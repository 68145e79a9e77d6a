package importspec

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/hcltext"
)

// Options say how to write the spec. They are plain data, safe for
// concurrent use while no one changes them.
type Options struct {
	// Name is the launch block's name; empty: derived from the script's
	// file name.
	Name string
	// Script is the script as given, for the header and the default name.
	Script string
	// SpecDir is the absolute directory the spec is written in: dir and
	// env_file are written relative to it.
	SpecDir string
	// DefaultInherit is the inherit list a spec has when it names none.
	DefaultInherit []string
}

// Note is one "# childproof import:" comment. It is plain data, safe for
// concurrent use while no one changes it.
type Note struct {
	// Pos locates what the note is about in the scripts (File as in
	// envres.Result.Files); File is empty for a note about the script as
	// a whole, Column 0 when the place is a line.
	envres.Pos
	Text string
	// Todo is set when a human must finish the spec there; otherwise the
	// spec replaces what the script did.
	Todo bool
	// Where marks the comment that only says where the worker starts in
	// the script: it is no finding to list.
	Where bool
}

// Spec is a written spec. Its methods only read it: a Spec is safe for
// concurrent use while no one changes it.
type Spec struct {
	// Name is the launch block's name.
	Name string
	// Text is the spec, formatted.
	Text []byte
	// Notes are the spec's "# childproof import:" comments, in the order
	// they appear in it.
	Notes []Note
}

// Todo reports whether a human must finish the spec.
func (s *Spec) Todo() bool {
	for _, n := range s.Notes {
		if n.Todo {
			return true
		}
	}
	return false
}

// section is a part of the launch block a note is written above.
type section int

const (
	secHead section = iota
	secCommand
	secDir
	secEnvFile
	secInherit
	secEnv
	secWorker
	secPort
	secReady
	secOnStale
	nSections
)

type builder struct {
	plan  *envres.LaunchPlan
	opt   Options
	notes [nSections][]Note
	vars  map[string]string // caller variable → spec variable
	// varDefault holds each spec variable's default, as HCL.
	varDefault map[string]string
	ready      *readyInfo // from a readiness loop
	replace    bool       // a kill cleanup: on_stale = "replace"
	// portVar names the spec variable a port read from ${PORT:-N} becomes.
	portVar string
	port    *portInfo // read from the worker's arguments by prepare
	// dependsOn names the launch blocks written for the workers the script
	// starts in the background before this one.
	dependsOn []string
	// loaded are the names already noted as read from an env file.
	loaded map[string]bool
}

func (b *builder) note(sec section, at envres.Pos, todo bool, format string, args ...any) {
	b.notes[sec] = append(b.notes[sec], Note{Pos: at, Text: fmt.Sprintf(format, args...), Todo: todo})
}

// pollers are what a readiness loop runs: never the worker.
var pollers = map[string]bool{"curl": true, "wget": true, "nc": true, "ncat": true, "sleep": true, "ss": true,
	"netstat": true, "lsof": true, "http": true, "timeout": true}

// interpreters start the worker under their own name: comm is theirs.
var interpreters = []string{"python", "node", "java", "ruby", "perl", "php", "bash", "sh", "uv", "uvx",
	"poetry", "npm", "npx", "yarn", "pnpm", "deno", "bun", "dotnet", "go", "conda", "pipenv", "R", "Rscript"}

func isInterpreter(base string) bool {
	for _, i := range interpreters {
		if base == i || strings.HasPrefix(base, i) && strings.Trim(base[len(i):], "0123456789.") == "" {
			return true
		}
	}
	return false
}

// pick chooses the worker: the last exec'd command, else the last
// background launch, else the last foreground command.
func pick(starts []*envres.Start) *envres.Start {
	for _, how := range []envres.How{envres.HowExec, envres.HowBackground, envres.HowForeground} {
		for i := len(starts) - 1; i >= 0; i-- {
			s := starts[i]
			if s.How != how || len(s.Argv) == 0 {
				continue
			}
			if v, ok := s.Argv[0].Literal(); ok && pollers[filepath.Base(v)] {
				continue
			}
			return s
		}
	}
	return nil
}

// genericNames are script names that say nothing of what they launch:
// the launch is named after the script's directory instead.
var genericNames = map[string]bool{"launch": true, "start": true, "run": true, "serve": true, "server": true,
	"dispatch": true, "entrypoint": true, "main": true, "up": true, "boot": true}

// launchName derives a launch name from a script's file name (or its
// directory's, for launch.sh, start.sh, run.sh …).
func launchName(script string) string {
	base := filepath.Base(script)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	if dir := filepath.Base(filepath.Dir(script)); genericNames[strings.ToLower(base)] && dir != "." && dir != "/" {
		base = dir
	}
	var b strings.Builder
	for i := 0; i < len(base) && b.Len() < 64; i++ {
		c := base[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			b.WriteByte(c)
		case b.Len() > 0 && (c == '_' || c == '-' || c == '.'):
			b.WriteByte(c)
		case b.Len() > 0:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "imported"
	}
	return b.String()
}

// extraLaunch is a worker the script starts in the background before the
// main one: it gets a launch block of its own, which the main one
// depends_on.
type extraLaunch struct {
	name string
	b    *builder
	w    *envres.Start
}

// Build writes the spec for plan: a launch block for the worker (the last
// exec'd command, else the last background launch, else the last
// foreground command), and one for each other worker the script leaves
// running in the background, which the main block depends_on.
func Build(plan *envres.LaunchPlan, opt Options) *Spec {
	shared := map[string]string{}
	b := &builder{plan: plan, opt: opt, vars: map[string]string{}, varDefault: shared, portVar: "port"}
	name := opt.Name
	if name == "" {
		name = launchName(opt.Script)
	}
	w := pick(plan.Starts)
	b.findings()
	b.constructs()
	var extras []extraLaunch
	var body strings.Builder
	if w == nil {
		b.note(secCommand, envres.Pos{}, true, "no command that starts a worker was found in the script: write the worker's argv here")
		b.section(&body, secHead)
		b.section(&body, secCommand)
		body.WriteString("command = []\n")
	} else {
		used := map[string]bool{name: true}
		for _, s := range b.background(w) {
			a0, _ := s.Argv[0].Literal()
			n := launchName(a0)
			for i := 2; used[n]; i++ {
				n = fmt.Sprintf("%s-%d", launchName(a0), i)
			}
			used[n] = true
			eb := &builder{plan: plan, opt: opt, vars: b.vars, varDefault: shared, portVar: identifier(n) + "_port"}
			eb.prepare(s)
			extras = append(extras, extraLaunch{name: n, b: eb, w: s})
			b.dependsOn = append(b.dependsOn, n)
		}
		b.prepare(w)
		b.giveNotes(extras)
		b.giveReady(extras)
		b.others(w, extras)
		b.write(&body, w)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# Written by childproof import from %s.\n", opt.Script)
	out.WriteString("# Each \"# childproof import:\" comment says what the script did that this spec\n")
	out.WriteString("# replaces (note) or cannot express (TODO: a human must finish it there).\n\n")
	for _, v := range slices.Sorted(maps.Keys(b.varDefault)) {
		fmt.Fprintf(&out, "variable %s {\n  default = %s\n}\n\n", hcltext.Quote(v), b.varDefault[v])
	}
	var notes []Note
	for _, e := range extras {
		var eb strings.Builder
		e.b.write(&eb, e.w)
		fmt.Fprintf(&out, "launch %s {\n%s}\n\n", hcltext.Quote(e.name), eb.String())
		for _, ns := range e.b.notes {
			notes = append(notes, ns...)
		}
	}
	fmt.Fprintf(&out, "launch %s {\n%s}\n", hcltext.Quote(name), body.String())
	// Comments quote the scripts, which need not be UTF-8; HCL text must be.
	text := strings.ToValidUTF8(out.String(), "\uFFFD")
	spec := &Spec{Name: name, Text: hcltext.Format([]byte(text)), Notes: notes}
	for _, ns := range b.notes {
		spec.Notes = append(spec.Notes, ns...)
	}
	return spec
}

// identifier turns a launch name into an HCL variable name.
func identifier(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '-' || c == '.' {
			c = '_'
		}
		if i == 0 && '0' <= c && c <= '9' {
			b.WriteByte('_')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// background returns the workers the script starts in the background
// before w and leaves running: each gets a launch block of its own.
func (b *builder) background(w *envres.Start) []*envres.Start {
	var out []*envres.Start
	for _, s := range b.plan.Starts {
		if s == w || s.How != envres.HowBackground || len(s.Argv) == 0 {
			continue
		}
		a0, ok := s.Argv[0].Literal()
		if !ok || pollers[filepath.Base(a0)] {
			continue
		}
		out = append(out, s)
	}
	return out
}
