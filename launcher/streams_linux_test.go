package launcher

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/spec"
	"github.com/google/go-cmp/cmp"
)

// TestStdoutStderrApart: a server that writes different lines to its
// stdout and its stderr; Options.Stdout and Stderr get each stream's
// lines apart, masked, a test waits on one stream (Lines.Wait in
// Ready.Func), and Output and the log still get every line whole.
func TestStdoutStderrApart(t *testing.T) {
	t.Parallel()
	const canary = "canary-stream-value-8812"
	// Many lines of each, written alternately, so that the two readers
	// race to the log: every line must still arrive whole.
	script := `i=0; while [ $i -lt 200 ]; do echo "out line $i"; echo "err line $i" >&2; i=$((i+1)); done
echo "key is $STREAM_KEY" >&2; echo "listening"; exec sleep 60`
	l := &spec.Launch{Name: "streams", Command: []string{"sh", "-c", script},
		Env: map[string]string{"STREAM_KEY": canary}, Secret: []string{"STREAM_KEY"}}
	var stdout, stderr, all Lines
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	la, err := Start(ctx, l, Options{StateDir: t.TempDir(), Stdout: &stdout, Stderr: &stderr, Output: &all,
		Ready: Readiness{Func: func(ctx context.Context) error {
			if _, err := stderr.Wait(ctx, regexp.MustCompile(`^key is `), 1); err != nil {
				return err
			}
			_, err := stdout.Wait(ctx, regexp.MustCompile(`^listening$`), 1)
			return err
		}}})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Stop(context.Background())
	var wantOut, wantErr []string
	for i := range 200 {
		wantOut = append(wantOut, "out line "+strconv.Itoa(i))
		wantErr = append(wantErr, "err line "+strconv.Itoa(i))
	}
	wantOut = append(wantOut, "listening")
	wantErr = append(wantErr, "key is <STREAM_KEY>")
	if diff := cmp.Diff(wantOut, stdout.Lines()); diff != "" {
		t.Errorf("Stdout (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantErr, stderr.Lines()); diff != "" {
		t.Errorf("Stderr (-want +got):\n%s", diff)
	}
	// Output and the log: every line of both, whole, each stream in its order.
	want := append(slices.Clone(wantOut), wantErr...)
	slices.Sort(want)
	got := all.Lines()
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Output (-want +got):\n%s", diff)
	}
	if _, err := la.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(la.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	logLines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var outOrder, errOrder []string
	for _, s := range logLines {
		switch {
		case strings.HasPrefix(s, "out line ") || s == "listening":
			outOrder = append(outOrder, s)
		case strings.HasPrefix(s, "err line ") || strings.HasPrefix(s, "key is "):
			errOrder = append(errOrder, s)
		}
	}
	if !cmp.Equal(outOrder, wantOut) || !cmp.Equal(errOrder, wantErr) {
		t.Errorf("the log does not hold each stream's lines whole and in order:\n%s", b)
	}
	slices.Sort(logLines)
	if diff := cmp.Diff(want, logLines); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	for name, s := range map[string]string{"stdout": strings.Join(stdout.Lines(), "\n"), "stderr": strings.Join(stderr.Lines(), "\n"), "log": string(b)} {
		if strings.Contains(s, canary) {
			t.Errorf("the secret value is in %s", name)
		}
	}
}

// TestStdoutStderrDetachRefused: a detached launch's output comes back
// from its log, which does not say the stream: Stdout or Stderr with
// Detach is refused before anything starts.
func TestStdoutStderrDetachRefused(t *testing.T) {
	l := &spec.Launch{Name: "d", Command: []string{"sleep", "60"}}
	_, err := Start(context.Background(), l, Options{StateDir: t.TempDir(), Detach: true, Stderr: &Lines{}})
	var e *Error
	if !errors.As(err, &e) || e.Outcome != outcome.Usage || !strings.Contains(err.Error(), "Options.Stdout and Options.Stderr are for a foreground launch") {
		t.Fatalf("err = %v, want an outcome.Usage *Error", err)
	}
}

// TestLinesWait: Wait returns the N-th matching line once written, and
// the context's error before.
func TestLinesWait(t *testing.T) {
	var l Lines
	l.Write([]byte("a 1\nb\na "))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if got, err := l.Wait(ctx, regexp.MustCompile(`^a `), 2); !errors.Is(err, context.DeadlineExceeded) || len(got) != 1 {
		t.Fatalf("Wait = %q, %v; want one line and the deadline", got, err)
	}
	done := make(chan []string)
	go func() {
		got, _ := l.Wait(context.Background(), regexp.MustCompile(`^a `), 2)
		done <- got
	}()
	l.Write([]byte("2\n"))
	if got := <-done; !cmp.Equal(got, []string{"a 1", "a 2"}) {
		t.Errorf("Wait = %q", got)
	}
	if got := l.Lines(); !cmp.Equal(got, []string{"a 1", "b", "a 2"}) {
		t.Errorf("Lines = %q", got)
	}
}
