package schema

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

// TestLoadReadyKinds: ready's exec, log and status decode to what they
// say, and each bad form is a diagnostic at its own range (exit 2).
func TestLoadReadyKinds(t *testing.T) {
	const port = "\n  port \"p\" {\n    number = 18000\n  }\n"
	cases := []struct {
		name string
		src  string
		want []string
		got  Ready
	}{
		{"exec", `launch "a" {
  command = ["true"]
  ready {
    exec = ["pg_isready", "-h", "127.0.0.1"]
  }
}`, nil, Ready{Exec: []string{"pg_isready", "-h", "127.0.0.1"}}},
		{"log", `launch "a" {
  command = ["true"]
  ready {
    log = "^ready: (\\d+) workers$"
  }
}`, nil, Ready{Log: `^ready: (\d+) workers$`}},
		{"http status", `launch "a" {
  command = ["true"]` + port + `  ready {
    http   = "/healthz"
    status = [200, 204]
  }
}`, nil, Ready{HTTP: "/healthz", Status: []int{200, 204}}},
		{"bad regex", `launch "a" {
  command = ["true"]
  ready {
    log = "ready (on"
  }
}`, []string{"4:11 error: Invalid log pattern"}, Ready{}},
		{"empty log", `launch "a" {
  command = ["true"]
  ready {
    log = ""
  }
}`, []string{"4:11 error: Empty log pattern"}, Ready{}},
		{"empty exec", `launch "a" {
  command = ["true"]
  ready {
    exec = []
  }
}`, []string{"4:12 error: Empty readiness command"}, Ready{}},
		{"exec empty program", `launch "a" {
  command = ["true"]
  ready {
    exec = ["", "x"]
  }
}`, []string{"4:13 error: Empty readiness command"}, Ready{}},
		{"two probes", `launch "a" {
  command = ["true"]
  ready {
    exec = ["pg_isready"]
    log  = "ready"
  }
}`, []string{"5:12 error: Conflicting readiness probes"}, Ready{}},
		{"status without http", `launch "a" {
  command = ["true"]` + port + `  ready {
    status = [200]
  }
}`, []string{"7:14 error: Status without an HTTP probe"}, Ready{}},
		{"status out of range", `launch "a" {
  command = ["true"]` + port + `  ready {
    http   = "/"
    status = [200, 999]
  }
}`, []string{"8:20 error: Invalid HTTP status"}, Ready{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testsupport.WriteTree(t, map[string]string{"s.hcl": c.src})
			f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{LookupEnv: lookupFrom(nil)})
			if diff := cmp.Diff(c.want, diagLines(diags)); diff != "" {
				for _, d := range diags {
					t.Log(d.Error())
				}
				t.Fatalf("diagnostics (-want +got):\n%s", diff)
			}
			if f == nil {
				return
			}
			if diff := cmp.Diff(c.got, f.Launches[0].Ready); diff != "" {
				t.Errorf("ready (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateReadyKinds: a Launch built in Go is held to the same rules.
func TestValidateReadyKinds(t *testing.T) {
	l := &Launch{Name: "a", Command: []string{"true"}, Ready: Ready{Log: "(", Status: []int{200}}}
	err := l.Validate()
	if err == nil || !strings.Contains(err.Error(), "ready.log") || !strings.Contains(err.Error(), "ready.status") {
		t.Fatalf("Validate = %v, want ready.log and ready.status named", err)
	}
}

// FuzzReadyLog: any pattern is either compiled or a diagnostic, never a
// panic.
func FuzzReadyLog(f *testing.F) {
	f.Add(`^ready$`)
	f.Add(`(`)
	f.Fuzz(func(t *testing.T, pat string) {
		readyProblems(&rawReady{Log: pat}, nil)
	})
}
