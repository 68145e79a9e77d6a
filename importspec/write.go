package importspec

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/hcltext"
)

// section writes the notes of sec as comments.
func (b *builder) section(out *strings.Builder, sec section) {
	for _, n := range b.notes[sec] {
		out.WriteString("# childproof import: ")
		if n.Todo {
			out.WriteString("TODO ")
		}
		if n.File != "" {
			f := n.File
			if !filepath.IsAbs(f) {
				f = filepath.Join(b.plan.Dir, f)
			}
			fmt.Fprintf(out, "%s:%d: ", b.rel(f), n.Line)
		}
		out.WriteString(oneLine(n.Text))
		out.WriteByte('\n')
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// rel returns p relative to the spec's directory ("." for the directory
// itself), or absolute when the two share no top-level directory.
func (b *builder) rel(p string) string {
	top := func(s string) string {
		s = strings.TrimPrefix(filepath.Clean(s), "/")
		t, _, _ := strings.Cut(s, "/")
		return t
	}
	if top(p) != top(b.opt.SpecDir) || top(p) == "" {
		return p
	}
	if r, err := filepath.Rel(b.opt.SpecDir, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// write writes the launch block's body for the worker start w: one step
// per part of the spec, in the order the spec holds them, each writing its
// section's notes before what it sets.
func (b *builder) write(out *strings.Builder, w *envres.Start) {
	b.writeCommand(out, w)
	b.writeDir(out, w)
	b.writeEnvFile(out, w)
	b.writeInherit(out, w)
	b.writeEnv(out, w)
	b.writeWorker(out, w)
	b.writePort(out)
	b.writeReady(out)
	b.writeOnStale(out)
}

// writeCommand writes the head's notes, then command: the worker's argv,
// each word the script resolved written as an expression, each it did not
// as the script's text with a TODO. The command section's notes open with
// where the script starts the worker.
func (b *builder) writeCommand(out *strings.Builder, w *envres.Start) {
	var argv []string
	for i, word := range w.Argv {
		if !word.Resolved() {
			b.note(secCommand, w.Pos, true, "command[%d] is %s in the script, which cannot be resolved statically: it is written as the script's text; replace it", i, word.Text)
			argv = append(argv, hcltext.Quote(word.Text))
			continue
		}
		b.checkUTF8(secCommand, w, fmt.Sprintf("command[%d]", i), word.Parts)
		b.noteLoaded(secCommand, w.Pos, word.Parts)
		argv = append(argv, expr(word.Parts, b.vars))
	}
	how := map[envres.How]string{envres.HowExec: "exec'd", envres.HowBackground: "started in the background", envres.HowForeground: "run"}[w.How]
	b.section(out, secHead)
	b.notes[secCommand] = append([]Note{{Pos: w.Pos,
		Text: "the worker, " + how + " here; the spec execs it directly, with no shell", Where: true}}, b.notes[secCommand]...)
	b.section(out, secCommand)
	fmt.Fprintf(out, "command = [%s]\n", strings.Join(argv, ", "))
}

// writeDir writes dir, the directory the worker starts in (a TODO when the
// script's is not known), then depends_on: the launches the script starts
// in the background before this one.
func (b *builder) writeDir(out *strings.Builder, w *envres.Start) {
	if w.Dir == "" {
		b.note(secDir, w.Pos, true, "the directory the worker starts in cannot be resolved statically: set dir (relative to this file)")
	}
	b.section(out, secDir)
	if w.Dir != "" {
		fmt.Fprintf(out, "dir = %s\n", hcltext.Quote(b.rel(w.Dir)))
	}
	if len(b.dependsOn) > 0 {
		fmt.Fprintf(out, "# childproof import: the script starts %s in the background first: each is a launch of its own here, which up starts and verifies before this one\n", strings.Join(b.dependsOn, ", "))
		fmt.Fprintf(out, "depends_on = %s\n", hcltext.List(b.dependsOn))
	}
}

// writeEnvFile writes env_file, the first env file the script loads into
// the exported environment; each further one is a TODO note.
func (b *builder) writeEnvFile(out *strings.Builder, w *envres.Start) {
	for i, f := range w.EnvFiles {
		if i > 0 {
			b.note(secEnvFile, envres.Pos{}, true, "the script also loads %s into the exported environment: a spec loads one env_file; move its names into env or into %s", b.rel(f), b.rel(w.EnvFiles[0]))
		}
	}
	b.section(out, secEnvFile)
	if len(w.EnvFiles) > 0 {
		fmt.Fprintf(out, "env_file = %s\n", hcltext.Quote(b.rel(w.EnvFiles[0])))
	}
}

// writeInherit writes the note that the spec passes on only inherit and
// env, then inherit: the default list and the names the script passes on,
// written only when the script passes on any.
func (b *builder) writeInherit(out *strings.Builder, w *envres.Start) {
	inherit := slices.Clone(b.opt.DefaultInherit)
	for _, n := range w.Inherit {
		if !slices.Contains(inherit, n) {
			inherit = append(inherit, n)
		}
	}
	b.note(secInherit, envres.Pos{}, false, "the script passed the caller's whole environment on; the spec passes only inherit (default %s) and env: add any other name the worker reads", strings.Join(b.opt.DefaultInherit, ", "))
	b.section(out, secInherit)
	if len(w.Inherit) > 0 {
		fmt.Fprintf(out, "inherit = %s\n", hcltext.List(inherit))
	}
}

// writeEnv writes env, the names the script exports to the worker (a TODO
// for each value, and each assignment, it cannot resolve), then require:
// the names an export X="${X:?msg}" demands.
func (b *builder) writeEnv(out *strings.Builder, w *envres.Start) {
	// export X="${X:?msg}": X must reach the worker. (Elsewhere, env("X")
	// without a default already refuses to launch when X is unset.)
	var require []string
	need := func(name string, parts []envres.Part) {
		for _, p := range parts {
			if p.Required && !slices.Contains(require, name) {
				require = append(require, name)
			}
		}
	}
	var env []string
	for _, e := range w.Env {
		v := hcltext.Quote(e.Value.Text)
		if e.Value.Resolved() {
			need(e.Name, e.Value.Parts)
			b.checkUTF8(secEnv, w, "env["+e.Name+"]", e.Value.Parts)
			b.noteLoaded(secEnv, e.Pos, e.Value.Parts)
			v = expr(e.Value.Parts, nil)
		} else {
			b.note(secEnv, e.Pos, true, "%s is set to %s, which cannot be resolved statically: it is written as the script's text; replace it", e.Name, e.Value.Text)
		}
		if e.Clobbered {
			b.note(secEnv, e.Pos, false, "%s was exported here, then an env file loaded later assigned it again, so the worker got the file's value; in the spec env wins over env_file: the worker gets this value", e.Name)
		}
		env = append(env, fmt.Sprintf("%s = %s", e.Name, v))
	}
	for _, u := range w.Unresolved {
		b.note(secEnv, u.Pos, true, "%s: add what it sets to env or env_file", u.Text)
	}
	b.section(out, secEnv)
	if len(env) > 0 {
		fmt.Fprintf(out, "env = {\n%s\n}\n", strings.Join(env, "\n"))
	}
	if len(require) > 0 {
		slices.Sort(require)
		fmt.Fprintf(out, "require = %s\n", hcltext.List(require))
	}
}

// writeWorker writes the worker block selecting the worker by its comm,
// the base name of command[0] (15 bytes, as the kernel keeps), when that
// is a literal and no interpreter; an interpreter with a port is a note.
func (b *builder) writeWorker(out *strings.Builder, w *envres.Start) {
	comm := ""
	if len(w.Argv) > 0 {
		if a0, ok := w.Argv[0].Literal(); ok {
			base := filepath.Base(a0)
			if isInterpreter(base) {
				if b.port != nil {
					b.note(secWorker, w.Pos, false, "the worker is run by %s: its comm would be the interpreter's, so the spec selects the worker as the port's owner", base)
				} // without a port, the port section's TODO says what to add
			} else {
				comm = base
				if len(comm) > 15 {
					comm = comm[:15] // the kernel keeps 15 bytes of comm
				}
			}
		}
	}
	b.section(out, secWorker)
	if comm != "" {
		fmt.Fprintf(out, "\nworker {\n  comm = %s\n}\n", hcltext.Quote(comm))
	}
}

// writePort writes the port section's notes, then the port "main" block
// for the port found in the script, if any.
func (b *builder) writePort(out *strings.Builder) {
	b.section(out, secPort)
	port := b.port
	if port != nil {
		fmt.Fprintf(out, "\nport %s {\n  number = %s\n", hcltext.Quote("main"), port.number)
		if port.address != "" {
			fmt.Fprintf(out, "  address = %s\n", hcltext.Quote(port.address))
		}
		if port.allowAll {
			out.WriteString("  allow_all_interfaces = true\n")
		}
		out.WriteString("}\n")
	}
}

// writeReady writes the ready section's notes, then the ready block for
// the readiness check found in the script, if any: an http check, or an
// empty block.
func (b *builder) writeReady(out *strings.Builder) {
	b.section(out, secReady)
	switch {
	case b.ready != nil && b.ready.http != "":
		fmt.Fprintf(out, "\nready {\n  http = %s\n}\n", hcltext.Quote(b.ready.http))
	case b.ready != nil:
		out.WriteString("\nready {}\n")
	}
}

// writeOnStale writes the on_stale section's notes, then on_stale =
// "replace" when the script has a cleanup that kills by name or by a pid
// read from a file.
func (b *builder) writeOnStale(out *strings.Builder) {
	b.section(out, secOnStale)
	if b.replace {
		out.WriteString("\non_stale = \"replace\"\n")
	}
}

// noteLoaded says, once per name, that a value the script read from an
// env file is written as env("NAME"): import never copies a value it read
// from a file.
func (b *builder) noteLoaded(sec section, at envres.Pos, parts []envres.Part) {
	for _, p := range parts {
		if p.Loaded == "" || b.loaded[p.Env] {
			continue
		}
		if b.loaded == nil {
			b.loaded = map[string]bool{}
		}
		b.loaded[p.Env] = true
		b.note(sec, at, false, "%s is read from %s by the script: the spec takes it from the caller as env(%q) (export it before childproof run, e.g. set -a; . %s; set +a) and copies no value of the file", p.Env, p.Loaded, p.Env, p.Loaded)
	}
}

// checkUTF8 notes a TODO for a value that is not UTF-8: HCL cannot hold
// it, and the spec has U+FFFD in its place.
func (b *builder) checkUTF8(sec section, w *envres.Start, what string, parts []envres.Part) {
	for _, p := range parts {
		if !utf8.ValidString(p.Lit) || !utf8.ValidString(p.Default) {
			b.note(sec, w.Pos, true, "%s holds bytes that are not UTF-8, which a spec cannot hold: they are written as U+FFFD; fix the value", what)
			return
		}
	}
}

// findings turns the lint findings of the walk into notes.
func (b *builder) findings() {
	for _, f := range b.plan.Lint.Findings {
		switch f.Rule {
		case envres.LoginShell.Name, envres.InteractiveShell.Name:
			b.note(secCommand, f.Pos, false, "%s (%s); the spec execs the worker directly: no profile or rc file runs", strings.TrimSuffix(f.Message, "."), f.Rule)
		case envres.BackgroundLaunch.Name:
			b.note(secCommand, f.Pos, false, "%s (%s); childproof run supervises the worker in the foreground, or verifies and records it with --detach", f.Message, f.Rule)
		case envres.Pidfile.Name:
			b.note(secOnStale, f.Pos, false, "$! is written to a pidfile (%s); childproof records the worker's fingerprint in its state dir instead: stop it with childproof stop", f.Rule)
		case envres.AllInterfaces.Name:
			b.note(secPort, f.Pos, false, "the worker binds all interfaces (%s): kept, with allow_all_interfaces = true; bind 127.0.0.1 in command and address unless other machines must reach it", f.Rule)
		case envres.EnvFileLoad.Name:
			b.note(secEnvFile, f.Pos, false, "%s (%s); the spec loads it with env_file, first, and env wins over it", f.Message, f.Rule)
		case envres.EnvReset.Name, envres.DynamicSource.Name, envres.EnvActivate.Name:
			b.note(secHead, f.Pos, true, "%s (%s)", f.Message, f.Rule)
		default:
			b.note(secHead, f.Pos, false, "%s (%s)", f.Message, f.Rule)
		}
	}
}

// constructs turns readiness loops, kill cleanups and conditionals into notes.
func (b *builder) constructs() {
	for _, c := range b.plan.Constructs {
		switch c.Kind {
		case envres.ReadinessLoop:
			r := &readyInfo{http: urlPath(c.URL), url: c.URL}
			if b.ready == nil || b.ready.http == "" {
				b.ready = r
			}
			b.note(secReady, c.Pos, false, "a readiness loop (%s): replaced by ready {}, which counts only once the verified worker owns the port", c.Text)
		case envres.KillCleanup:
			b.replace = true
			b.note(secOnStale, c.Pos, false, "a cleanup that kills by name or by a pid read from a file (%s), which may hit a stranger: replaced by on_stale = \"replace\", which stops only childproof's own recorded previous instance and leaves a stranger on the port alone", c.Text)
		case envres.Conditional:
			if c.Affects {
				b.note(secHead, c.Pos, true, "a conditional (%s): a spec has one path, and this one follows what the analysis could resolve; check that it is the branch you want", c.Text)
			} else {
				b.note(secHead, c.Pos, false, "a conditional (%s) that changes nothing the worker gets: dropped", c.Text)
			}
		}
	}
}

// prepare reads the port from the worker's arguments.
func (b *builder) prepare(w *envres.Start) { b.port = b.findPort(w) }

// giveNotes moves the notes about an extra launch's start (its
// background-launch finding, …) to its own block.
func (b *builder) giveNotes(extras []extraLaunch) {
	for _, e := range extras {
		for sec := range b.notes {
			keep := b.notes[sec][:0]
			for _, n := range b.notes[sec] {
				if n.File == e.w.File && n.Line == e.w.Line {
					e.b.notes[sec] = append(e.b.notes[sec], n)
				} else {
					keep = append(keep, n)
				}
			}
			b.notes[sec] = keep
		}
	}
}

// giveReady moves the readiness loop's ready block to the background
// launch whose port the loop polls.
func (b *builder) giveReady(extras []extraLaunch) {
	if b.ready == nil {
		return
	}
	p := urlPort(b.ready.url)
	if p == 0 {
		return
	}
	for _, e := range extras {
		if e.b.port != nil && e.b.port.n == p {
			e.b.ready, b.ready = b.ready, nil
			e.b.notes[secReady], b.notes[secReady] = b.notes[secReady], nil
			return
		}
	}
}

// others notes the worker starts not chosen and not written as launches
// of their own.
func (b *builder) others(w *envres.Start, extras []extraLaunch) {
	for _, s := range b.plan.Starts {
		if s == w || len(s.Argv) == 0 || slices.ContainsFunc(extras, func(e extraLaunch) bool { return e.w == s }) {
			continue
		}
		a0, ok := s.Argv[0].Literal()
		if ok && pollers[filepath.Base(a0)] {
			continue
		}
		if !ok {
			a0 = s.Argv[0].Text
		}
		b.note(secHead, s.Pos, true, "the script also runs %s here: a launch block starts one worker; add a launch block for it if it must keep running, or drop it", a0)
	}
	for _, c := range b.plan.Commands {
		if c.File == w.File && c.Line == w.Line && c.Column == w.Column || pollers[filepath.Base(c.Name)] {
			continue
		}
		if slices.ContainsFunc(b.plan.Starts, func(s *envres.Start) bool { return s.File == c.File && s.Line == c.Line && s.Column == c.Column }) {
			continue // noted above
		}
		name := c.Name
		if name == "" {
			name = "a command that cannot be resolved statically"
		}
		b.note(secHead, c.Pos, true, "the script runs %s here and waits for it before the worker starts; the spec does not run it: run it before childproof run/up, or drop it", name)
	}
}

type readyInfo struct{ http, url string }

// hostPortPath is HOST:PORT/PATH without a scheme, as curl and wget take
// it: localhost, an IPv4 address, [IPv6] or a variable, then a port or a
// variable.
var hostPortPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(localhost|[0-9]{1,3}(\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]+\]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?):([0-9]{1,5}|\$\{?[A-Za-z_][A-Za-z0-9_]*(:-[0-9]+)?\}?)(/|$)`)
})

// urlPort returns the port of a literal URL or HOST:PORT, 0 when there is none.
func urlPort(u string) int {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	_, p, err := net.SplitHostPort(u)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return 0
	}
	return n
}

// urlPath returns the path of an http URL written in a script, "" when
// there is none or it is not literal.
func urlPath(u string) string {
	i := strings.Index(u, "://")
	if i < 0 && hostPortPath().MatchString(u) {
		// curl -sf localhost:$PORT/health: an http URL without its scheme.
		u, i = "http://"+u, len("http")
	}
	if i < 0 || !strings.HasPrefix(u, "http") {
		return ""
	}
	rest := u[i+3:]
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return "/"
	}
	p := rest[j:]
	if k := strings.IndexAny(p, "?#\"' "); k >= 0 {
		p = p[:k]
	}
	if strings.ContainsAny(p, "$`\\") {
		return ""
	}
	return p
}
