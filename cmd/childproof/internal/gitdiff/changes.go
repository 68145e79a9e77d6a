package gitdiff

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Span is a range of changed lines, 1-based and inclusive. It is plain
// data, safe for concurrent use while no one changes it.
type Span struct{ From, To int }

// Changes are the lines of a work tree changed since a revision. Its
// methods only read it: a Changes is safe for concurrent use while no one
// changes its fields.
type Changes struct {
	// Root is the work tree's root (absolute).
	Root string
	// Files maps a path relative to Root (slash-separated) to its changed
	// spans; a nil slice means the whole file is new (untracked).
	Files map[string][]Span
}

// ErrRevision is returned (wrapped) when the revision is not known.
var ErrRevision = errors.New("unknown revision")

// ErrNotRepository is returned (wrapped) when dir is not in a git work tree.
var ErrNotRepository = errors.New("not a git work tree")

// Since runs git in dir and returns what changed in its work tree since
// rev. Untracked (not ignored) files count as changed throughout.
func Since(ctx context.Context, dir, rev string) (*Changes, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("%w %q", ErrRevision, rev)
	}
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNotRepository, dir)
	}
	c := &Changes{Root: strings.TrimSpace(string(root))}
	if _, err := git(ctx, c.Root, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%w %q", ErrRevision, rev)
	}
	diff, err := git(ctx, c.Root, "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--unified=0", rev, "--")
	if err != nil {
		return nil, err
	}
	if c.Files, err = Parse(bytes.NewReader(diff)); err != nil {
		return nil, err
	}
	others, err := git(ctx, c.Root, "-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	for _, f := range strings.Split(string(others), "\x00") {
		if f != "" {
			c.Files[f] = nil
		}
	}
	return c, nil
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Parse reads a unified diff with zero lines of context (git diff
// --unified=0) and returns the changed spans of each new-side file. A
// pure deletion marks the lines on both sides of the gap.
func Parse(r io.Reader) (map[string][]Span, error) {
	out := map[string][]Span{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	file := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+++ "):
			file = ""
			p := strings.TrimPrefix(line, "+++ ")
			if p == "/dev/null" {
				continue
			}
			if !strings.HasPrefix(p, "b/") {
				return nil, fmt.Errorf("diff: unexpected file header %q", line)
			}
			file = strings.TrimSuffix(p[2:], "\t")
			if _, ok := out[file]; !ok {
				out[file] = []Span{}
			}
		case strings.HasPrefix(line, "@@ ") && file != "":
			sp, err := hunk(line)
			if err != nil {
				return nil, err
			}
			out[file] = append(out[file], sp)
		}
	}
	return out, sc.Err()
}

// hunk parses "@@ -a[,b] +c[,d] @@".
func hunk(line string) (Span, error) {
	fs := strings.Fields(line)
	if len(fs) < 3 || !strings.HasPrefix(fs[2], "+") {
		return Span{}, fmt.Errorf("diff: bad hunk header %q", line)
	}
	start, count := fs[2][1:], "1"
	if i := strings.IndexByte(start, ','); i >= 0 {
		start, count = start[:i], start[i+1:]
	}
	c, err1 := strconv.Atoi(start)
	d, err2 := strconv.Atoi(count)
	if err1 != nil || err2 != nil || c < 0 || d < 0 || c > 1<<30 || d > 1<<30 {
		return Span{}, fmt.Errorf("diff: bad hunk header %q", line)
	}
	if d == 0 {
		// Lines removed after line c: the lines around the gap changed.
		return Span{From: max(c, 1), To: c + 1}, nil
	}
	return Span{From: c, To: c + d - 1}, nil
}

// ChangedFile reports whether any line of the file at path (absolute, or
// relative to the root) changed.
func (c *Changes) ChangedFile(path string) bool {
	_, ok := c.spans(path)
	return ok
}

// spans returns the changed spans of the file at path, and whether it
// changed at all.
func (c *Changes) spans(path string) ([]Span, bool) {
	rel := path
	if filepath.IsAbs(path) {
		r, err := filepath.Rel(c.Root, path)
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return nil, false
		}
		rel = r
	}
	spans, ok := c.Files[filepath.ToSlash(rel)]
	return spans, ok
}

// Changed reports whether line of the file at path (absolute, or
// relative to the root) changed. Files outside the root never changed.
func (c *Changes) Changed(path string, line int) bool {
	spans, ok := c.spans(path)
	if !ok {
		return false
	}
	if spans == nil {
		return true
	}
	for _, s := range spans {
		if line >= s.From && line <= s.To {
			return true
		}
	}
	return false
}
