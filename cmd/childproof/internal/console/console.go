package console

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/muesli/termenv"
	"github.com/rivo/uniseg"
)

// Options tune a Console. They are plain data, safe for concurrent use
// while no one changes them.
type Options struct {
	// Live draws status lines; set it only for a terminal.
	Live bool
	// Color colours names and status lines (a terminal without NO_COLOR).
	Color bool
	// Width returns the terminal's width in columns; nil or 0 means 80.
	Width func() int
	// Prefix puts "NAME | " before each output line, for several launches
	// sharing the stream (names are padded to the longest seen).
	Prefix bool
	// Tick is how often status lines are redrawn (elapsed time); 0 means
	// 100 ms.
	Tick time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Console is safe for concurrent use.
type Console struct {
	mu     sync.Mutex
	w      io.Writer
	opt    Options
	buf    bytes.Buffer
	out    *termenv.Output
	status []*Status
	drawn  int // status lines on the screen now
	pad    int
	names  map[string]int // name → colour index
	stop   chan struct{}
	closed bool
}

// New returns a Console writing to w.
func New(w io.Writer, opt Options) *Console {
	c := &Console{w: w, opt: opt, names: map[string]int{}}
	profile := termenv.Ascii
	if opt.Color {
		profile = termenv.ANSI
	}
	c.out = termenv.NewOutput(&c.buf, termenv.WithProfile(profile))
	if c.opt.Tick == 0 {
		c.opt.Tick = 100 * time.Millisecond
	}
	if c.opt.Now == nil {
		c.opt.Now = time.Now
	}
	return c
}

// Status is the live status line of one waiting launch. Its methods hold
// the Console's lock: a Status is safe for concurrent use.
type Status struct {
	c       *Console
	name    string
	text    string
	started time.Time
	timeout time.Duration
	last    string // the launch's last output line
}

// Wait adds a status line for the launch name; started and timeout give
// the elapsed time and its bound shown on it.
func (c *Console) Wait(name string, started time.Time, timeout time.Duration) *Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &Status{c: c, name: name, started: started, timeout: timeout}
	c.status = append(c.status, s)
	c.notePad(name)
	if c.opt.Live && c.stop == nil && !c.closed {
		c.stop = make(chan struct{})
		go c.tick(c.stop)
	}
	c.redraw(nil)
	return s
}

// Set changes what the status line says the launch waits for, and the
// start and bound of its wait (a retried attempt starts again).
func (s *Status) Set(text string, started time.Time, timeout time.Duration) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	s.text, s.started, s.timeout = text, started, timeout
	c.redraw(nil)
}

// Done removes the status line.
func (s *Status) Done() {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.status {
		if x == s {
			c.status = append(c.status[:i], c.status[i+1:]...)
			break
		}
	}
	c.redraw(nil)
}

// Output writes one line of the launch name's output above the status
// lines, and remembers it as that launch's last line.
func (c *Console) Output(name, line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLast(name, line)
	var b strings.Builder
	if c.opt.Prefix {
		c.notePad(name)
		b.WriteString(c.paint(name, fmt.Sprintf("%-*s |", c.pad, name)))
		b.WriteByte(' ')
	}
	b.WriteString(line)
	b.WriteByte('\n')
	c.redraw([]byte(b.String()))
}

// OutputBlock writes lines of the launch name's output (each ending in a
// newline) above the status lines in one write (a chatty worker's lines,
// gathered), and remembers the last as that launch's last line.
func (c *Console) OutputBlock(name string, block []byte) {
	if len(block) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	body := block[:len(block)-1]
	last := string(body[bytes.LastIndexByte(body, '\n')+1:])
	c.setLast(name, last)
	if c.opt.Prefix {
		c.notePad(name)
		head := c.paint(name, fmt.Sprintf("%-*s |", c.pad, name)) + " "
		b := make([]byte, 0, len(block)+len(head)*bytes.Count(block, []byte{'\n'}))
		for len(block) > 0 {
			i := bytes.IndexByte(block, '\n') + 1
			if i == 0 {
				i = len(block)
			}
			b = append(append(b, head...), block[:i]...)
			block = block[i:]
		}
		block = b
	}
	c.redraw(block)
}

// Last remembers line as the launch name's last output line, shown on
// its status line, without printing it.
func (c *Console) Last(name, line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setLast(name, line)
}

// setLast sets the last output line of name's status lines; c.mu is held.
func (c *Console) setLast(name, line string) {
	for _, s := range c.status {
		if s.name == name {
			s.last = line
		}
	}
}

// Write writes p above the status lines (a report, a message): Console
// is an io.Writer for whatever else goes to the same stream.
func (c *Console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.redraw(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Underlying returns the stream the console writes to.
func (c *Console) Underlying() io.Writer { return c.w }

// Writer returns a writer whose writes go to w with the status lines
// erased before and drawn again after: for another stream on the same
// terminal (stderr beside stdout).
func (c *Console) Writer(w io.Writer) io.Writer { return &sideWriter{c: c, w: w} }

type sideWriter struct {
	c *Console
	w io.Writer
}

// Underlying returns the stream the writer writes to.
func (s *sideWriter) Underlying() io.Writer { return s.w }

func (s *sideWriter) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.opt.Live || c.drawn == 0 {
		return s.w.Write(p)
	}
	c.erase()
	if _, err := c.w.Write(c.buf.Bytes()); err != nil {
		return 0, err
	}
	c.drawn = 0
	n, err := s.w.Write(p)
	if err != nil {
		return n, err
	}
	return n, c.redraw(nil)
}

// Close erases the status lines and stops redrawing; later output still
// passes through.
func (c *Console) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status = nil
	if c.stop != nil {
		close(c.stop)
		c.stop = nil
	}
	c.closed = true
	c.redraw(nil)
}

func (c *Console) tick(stop chan struct{}) {
	t := time.NewTicker(c.opt.Tick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			c.mu.Lock()
			c.redraw(nil)
			c.mu.Unlock()
		}
	}
}

func (c *Console) notePad(name string) {
	if n := uniseg.StringWidth(name); n > c.pad {
		c.pad = n
	}
	if _, ok := c.names[name]; !ok {
		c.names[name] = len(c.names)
	}
}

// nameColors are the ANSI colours names cycle through (cyan, yellow,
// magenta, blue, green).
var nameColors = []string{"6", "3", "5", "4", "2"}

func (c *Console) paint(name, s string) string {
	i := c.names[name] % len(nameColors)
	return c.out.String(s).Foreground(c.out.Color(nameColors[i])).String()
}

// redraw erases the drawn status lines, writes p, and draws the status
// lines again, in one write. Without Live it writes p alone.
func (c *Console) redraw(p []byte) error {
	if !c.opt.Live {
		if len(p) == 0 {
			return nil
		}
		_, err := c.w.Write(p)
		return err
	}
	c.erase()
	c.buf.Write(p)
	c.drawn = 0
	for i, s := range c.status {
		if i > 0 {
			c.buf.WriteByte('\n')
		}
		c.buf.WriteString(c.line(s))
		c.drawn++
	}
	if c.buf.Len() == 0 {
		return nil
	}
	_, err := c.w.Write(c.buf.Bytes())
	return err
}

// erase puts into buf what erases the drawn status lines, leaving the
// cursor at the start of the first.
func (c *Console) erase() {
	c.buf.Reset()
	if c.drawn > 0 {
		// The cursor sits at the end of the last status line.
		c.buf.WriteByte('\r')
		c.out.ClearLine()
		for range c.drawn - 1 {
			c.out.CursorPrevLine(1)
			c.out.ClearLine()
		}
	}
}

// line renders a status line, cut to the terminal's width.
func (c *Console) line(s *Status) string {
	width := 80
	if c.opt.Width != nil {
		if w := c.opt.Width(); w > 0 {
			width = w
		}
	}
	head := s.name + ": "
	if len(c.status) == 1 && !c.opt.Prefix {
		head = ""
	}
	text := s.text
	if text == "" {
		text = "starting"
	}
	elapsed := c.opt.Now().Sub(s.started)
	clock := elapsed.Truncate(100 * time.Millisecond).String()
	if s.timeout > 0 {
		clock += " of " + s.timeout.String()
	}
	plain := "… " + head + text + " · " + clock
	if last := Clean(s.last); last != "" {
		plain += " · last output: " + last
	}
	plain = Truncate(plain, width-1)
	return c.out.String(plain).Faint().String()
}

// Clean makes a line of a worker's output fit a status line: what follows
// its last carriage return (a progress bar redrawn in place), without
// control characters or escape sequences, trimmed.
func Clean(s string) string {
	if i := strings.LastIndexByte(strings.TrimRight(s, "\r"), '\r'); i >= 0 {
		s = s[i+1:]
	}
	var b strings.Builder
	esc := false
	for _, r := range s {
		switch {
		case esc:
			// Skip a CSI sequence up to its final byte.
			if r >= '@' && r <= '~' && r != '[' {
				esc = false
			}
		case r == 0x1b:
			esc = true
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// Truncate cuts s to at most width terminal columns, ending with "…" when
// it cut.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if uniseg.StringWidth(s) <= width {
		return s
	}
	var b strings.Builder
	used := 0
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		w := g.Width()
		if used+w > width-1 {
			break
		}
		b.WriteString(g.Str())
		used += w
	}
	b.WriteString("…")
	return b.String()
}
