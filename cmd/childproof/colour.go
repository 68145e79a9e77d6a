package main

import (
	"bytes"
	"io"
	"regexp"
	"sync"

	"github.com/childproof/childproof/cmd/childproof/internal/console"
	"github.com/muesli/termenv"
)

// Colour in run, relaunch, verify, ps and stop output: verified and alive
// green, failures and problems red, what needs a look yellow. Only on a
// terminal and without NO_COLOR or --no-color (app.color); the text is
// the same either way, only painted.

// paintRule paints the match of re in a line.
type paintRule struct {
	re    *regexp.Regexp
	color string // ANSI colour number
}

// reportPaint paints run/verify/relaunch reports, ps tables and stop
// messages: whole words, so that a value or a path is never painted.
// Compiled on first use: most commands never paint, and compiling them
// in package init cost every command, the probes included, about 7% of
// its start-up instructions.
var reportPaint = sync.OnceValue(func() []paintRule {
	return []paintRule{
		{regexp.MustCompile(`^verified\b`), "2"},
		{regexp.MustCompile(`^NOT (verified|started)\b`), "1"},
		{regexp.MustCompile(`^  problem:`), "1"},
		{regexp.MustCompile(`\bowned by the worker\b`), "2"},
		{regexp.MustCompile(`^  ready: +yes\b`), "2"},
		{regexp.MustCompile(`^  ready: +no\b`), "1"},
		{regexp.MustCompile(`\b(present, matches)\b`), "2"},
		{regexp.MustCompile(`\b(missing|differs|NOT declared)\b`), "1"},
		// ps: the STATUS column.
		{regexp.MustCompile(`^\S+ +(alive)\b`), "2"},
		{regexp.MustCompile(`^\S+ +(gone|pid reused|untrusted)\b`), "1"},
		{regexp.MustCompile(`^\S+ +(unverified|unknown|stopped)\b`), "3"},
		// stop.
		{regexp.MustCompile(`: (stopped the worker)\b`), "2"},
		{regexp.MustCompile(`\b(already gone|left alone|SIGKILL)\b`), "3"},
	}
})

// painted returns w, or when w gets colour a writer that paints each
// line by rules (asked for only then).
func (a *app) painted(w io.Writer, rules func() []paintRule) io.Writer {
	if !a.color(w) {
		return w
	}
	return &painter{w: w, rules: rules(), out: termenv.NewOutput(io.Discard, termenv.WithProfile(termenv.ANSI))}
}

type painter struct {
	w     io.Writer
	rules []paintRule
	out   *termenv.Output
	buf   []byte
}

func (p *painter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	var out bytes.Buffer
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		out.WriteString(p.paint(string(p.buf[:i])))
		out.WriteByte('\n')
		p.buf = p.buf[i+1:]
	}
	// A line without its newline yet passes unpainted: nothing is held
	// back (the writer has no Close to flush it).
	out.Write(p.buf)
	p.buf = p.buf[:0]
	if out.Len() > 0 {
		if _, err := p.w.Write(out.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// paint colours the first match of each rule (its first group when it
// has one).
func (p *painter) paint(line string) string {
	for _, r := range p.rules {
		m := r.re.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		lo, hi := m[0], m[1]
		if len(m) >= 4 && m[2] >= 0 {
			lo, hi = m[2], m[3]
		}
		line = line[:lo] + p.out.String(line[lo:hi]).Foreground(p.out.Color(r.color)).String() + line[hi:]
	}
	return line
}

// underlying is implemented by writers that stand for a stream (the
// console while a launch waits), so that colour follows the stream.
type underlying interface{ Underlying() io.Writer }

var _ underlying = (*console.Console)(nil)
