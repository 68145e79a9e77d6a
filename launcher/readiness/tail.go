package readiness

import (
	"bytes"
	"strings"
	"sync"
)

// tailBuffer keeps the last 512 bytes written to it. Safe for concurrent
// use (a command's stdout and stderr).
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 512 {
		t.b = append(t.b[:0], t.b[len(t.b)-512:]...)
	}
	return len(p), nil
}

// lastLine is the last non-empty line written, at most 200 bytes.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.b), []byte("\n"))
	s := strings.TrimSpace(string(lines[len(lines)-1]))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
