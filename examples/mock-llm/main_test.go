package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as mock-llm itself when
// MOCK_LLM_TEST_CHILD is set, so the tests start real processes without a
// separate build.
func TestMain(m *testing.M) {
	if os.Getenv("MOCK_LLM_TEST_CHILD") == "1" {
		os.Args = append([]string{"mock-llm"}, strings.Fields(os.Getenv("MOCK_LLM_TEST_ARGS"))...)
		os.Exit(run())
	}
	os.Exit(m.Run())
}

func child(t *testing.T, key string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{"MOCK_LLM_TEST_CHILD=1", "MOCK_LLM_TEST_ARGS=" + strings.Join(args, " ")}
	if key != "" {
		cmd.Env = append(cmd.Env, "MOCK_LLM_KEY="+key)
	}
	return cmd
}

func TestRefusesWithoutKey(t *testing.T) {
	cmd := child(t, "")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != "LLM_PROVIDER_NOT_CONFIGURED: MOCK_LLM_KEY missing" {
		t.Fatalf("output %q", got)
	}
}

func TestServesAndStopsOnSIGTERM(t *testing.T) {
	cmd := child(t, "k", "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() // our own child only
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`listening on (\S+) `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q", line)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + m[1] + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != "ok" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v (%s)", err, rest)
	}
	if !strings.Contains(string(rest), "mock-llm: stopped") {
		t.Errorf("output after SIGTERM: %q", rest)
	}
}
