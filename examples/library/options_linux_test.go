package library_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

// TestMockLLMEveryOption is a test author's test that uses each option of
// launchertest: the port written once, a range for it, a context, the
// added readiness checks, an output writer, and a short stop grace.
func TestMockLLMEveryOption(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // bounds the start only
	defer cancel()
	l := &schema.Launch{
		Name: "mock-llm",
		// {{port "http"}} is filled from Ports: the port is written once.
		Command: []string{mockLLM, "--addr", `127.0.0.1:{{port "http"}}`},
		Env:     map[string]string{"MOCK_LLM_KEY": "every-option-key"},
		Require: []string{"MOCK_LLM_KEY"},
		Secret:  []string{"MOCK_LLM_KEY"}, // masked in the streamed output, errors and reports
		Worker:  schema.Worker{Comm: "mock-llm"},
		Ports:   []schema.Port{{Name: "http", Number: launchertest.FreePortIn(t, 20000, 29999)}},
		Ready:   schema.Ready{HTTP: "/healthz", Timeout: 10 * time.Second},
	}
	var out lines
	la := launchertest.StartContext(ctx, t, l, launcher.Options{
		Ready: launcher.Readiness{
			Status: func(code int) bool { return code == http.StatusOK }, // instead of any 2xx
			Body:   regexp.MustCompile(`^ok\n$`),                         // the /healthz body
			Log:    regexp.MustCompile(`^mock-llm: listening on `),       // a line of its output
			Func: func(ctx context.Context) error { // any check of one's own
				return complete(ctx, l.Ports[0].Number)
			},
		},
		// Each line, masked, to a writer of one's own (the default is the
		// test log, as "mock-llm| line").
		Output: &out,
		// The cleanup's SIGKILL comes 2 s after SIGTERM, not 10 s.
		StopGrace: 2 * time.Second,
	})
	if !la.Report.Verified || !slices.ContainsFunc(out.get(), func(s string) bool { return strings.HasPrefix(s, "mock-llm: listening on 127.0.0.1:") }) {
		t.Errorf("verified %v; output %q", la.Report.Verified, out.get())
	}
	if err := complete(t.Context(), l.Ports[0].Number); err != nil {
		t.Fatal(err)
	}
}

// complete POSTs /v1/complete and wants a 200.
func complete(ctx context.Context, port int) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/v1/complete", port), strings.NewReader("{}"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/v1/complete: %s", resp.Status)
	}
	return nil
}

// lines collects what Output gets.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (s *lines) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.l = append(s.l, strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

func (s *lines) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.l)
}

// TestTwoDependentServers: launchertest.Up starts "upstream" before
// "gateway" (gateway depends on it), each verified before the next; the
// test's cleanups stop gateway first.
func TestTwoDependentServers(t *testing.T) {
	t.Parallel()
	upstream := mockSpec(launchertest.FreePort(t), "upstream-key")
	upstream.Name = "upstream"
	gateway := mockSpec(launchertest.FreePort(t), "gateway-key")
	gateway.Name = "gateway"
	gateway.DependsOn = []string{"upstream"}
	las := launchertest.Up(t, launcher.Options{}, gateway, upstream)
	if las["upstream"].Record.Started.After(las["gateway"].Record.Started) {
		t.Error("gateway started before upstream")
	}
}

// TestKeyExportedButNotPassed: the key exported in the test (t.Setenv)
// but not named in Inherit is refused before anything starts, with the
// true reason and the fix — Inherit, not an export.
func TestKeyExportedButNotPassed(t *testing.T) {
	t.Setenv("MOCK_LLM_KEY", "exported-key")
	l := mockSpec(launchertest.FreePort(t), "")
	l.Env = nil
	_, err := launcher.Start(t.Context(), l, launcher.Options{StateDir: t.TempDir()})
	var e *launcher.Error
	if !errors.As(err, &e) || e.Outcome != outcome.Usage {
		t.Fatalf("got %v, want Invalid", err)
	}
	if !strings.Contains(e.Error(), "MOCK_LLM_KEY is set in the caller but not passed") || !strings.Contains(e.Hint, "add MOCK_LLM_KEY to Inherit") {
		t.Errorf("error %q, hint %q", e.Error(), e.Hint)
	}
	// The fix the hint names.
	l.Inherit = append(slices.Clone(schema.DefaultInherit), "MOCK_LLM_KEY")
	launchertest.Start(t, l, launcher.Options{})
}
