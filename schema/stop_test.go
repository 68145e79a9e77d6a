package schema

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

// TestLoadStopOneshotReady: the stop block, oneshot and a ready that
// needs a port decode to what they say, and each bad form is a
// diagnostic at its own range.
func TestLoadStopOneshotReady(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		want    []string
		stop    Stop
		oneshot bool
	}{
		{"stop", `launch "a" {
  command = ["true"]
  stop {
    signal  = "SIGQUIT"
    timeout = "3s"
  }
}`, nil, Stop{Signal: "SIGQUIT", Timeout: 3 * time.Second}, false},
		{"no stop", `launch "a" {
  command = ["true"]
}`, nil, Stop{}, false},
		{"bad signal", `launch "a" {
  command = ["true"]
  stop {
    signal = "SIGKILL"
  }
}`, []string{"4:14 error: Unknown stop signal"}, Stop{}, false},
		{"signal without SIG", `launch "a" {
  command = ["true"]
  stop {
    signal = "TERM"
  }
}`, []string{"4:14 error: Unknown stop signal"}, Stop{}, false},
		{"bad stop timeout", `launch "a" {
  command = ["true"]
  stop {
    timeout = "0s"
  }
}`, []string{"4:15 error: Invalid duration"}, Stop{}, false},
		{"stop unknown attribute", `launch "a" {
  command = ["true"]
  stop {
    grace = "1s"
  }
}`, []string{"4:5 error: Unsupported argument"}, Stop{}, false},
		{"two stop blocks", `launch "a" {
  command = ["true"]
  stop {
  }
  stop {
  }
}`, []string{"5:3 error: Duplicate stop block"}, Stop{}, false},
		{"oneshot", `launch "a" {
  command = ["true"]
  oneshot = true
}`, nil, Stop{}, true},
		{"oneshot not a bool", `launch "a" {
  command = ["true"]
  oneshot = "maybe"
}`, []string{"3:13 error: Incorrect attribute value type"}, Stop{}, false},
		{"oneshot with port, ready and restart", `launch "a" {
  command = ["true"]
  oneshot = true
  port "http" {
    number = 8000
  }
  ready {
    timeout = "5s"
  }
  restart {
    policy = "on-failure"
  }
}`, []string{"4:3 error: Port on a oneshot launch", "7:3 error: Unexpected ready block on a oneshot launch", "10:3 error: Unexpected restart block on a oneshot launch"}, Stop{}, false},
		{"ready http without a port", `launch "a" {
  command = ["sleep", "30"]
  ready {
    http = "/healthz"
  }
}`, []string{"4:12 error: Readiness without a port"}, Stop{}, false},
		{"empty ready without a port", `launch "a" {
  command = ["sleep", "30"]
  ready {
  }
}`, []string{"3:3 error: Readiness without a port"}, Stop{}, false},
		{"ready exec without a port", `launch "a" {
  command = ["sleep", "30"]
  ready {
    exec = ["true"]
  }
}`, nil, Stop{}, false},
		{"ready log without a port", `launch "a" {
  command = ["sleep", "30"]
  ready {
    log = "ready"
  }
}`, nil, Stop{}, false},
		{"ready timeout without a port bounds the wait for the worker", `launch "a" {
  command = ["sleep", "30"]
  ready {
    timeout = "2s"
  }
}`, nil, Stop{}, false},
		{"ready http with a port", `launch "a" {
  command = ["sleep", "30"]
  port "http" {
    number = 8000
  }
  ready {
    http = "/healthz"
  }
}`, nil, Stop{}, false},
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
			la := f.Launches[0]
			if diff := cmp.Diff(c.stop, la.Stop); diff != "" {
				t.Errorf("stop (-want +got):\n%s", diff)
			}
			if la.Oneshot != c.oneshot {
				t.Errorf("oneshot = %v, want %v", la.Oneshot, c.oneshot)
			}
		})
	}
	if s := (Stop{}); s.EffectiveSignal() != "SIGTERM" || s.EffectiveTimeout() != 10*time.Second {
		t.Errorf("zero Stop: %s, %s", s.EffectiveSignal(), s.EffectiveTimeout())
	}
}

// TestValidateStopOneshot: a Launch built in Go is held to the same rules
// as the spec: a stop signal of the six, a oneshot without port, ready or
// restart.
func TestValidateStopOneshot(t *testing.T) {
	l := &Launch{Name: "a", Command: []string{"true"}, Stop: Stop{Signal: "SIGKILL"}}
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), `stop signal "SIGKILL" is not one of`) {
		t.Errorf("SIGKILL: %v", err)
	}
	l = &Launch{Name: "a", Command: []string{"true"}, Oneshot: true, Ports: []Port{{Name: "p", Number: 8000}}, Restart: Restart{Policy: RestartAlways}}
	err := l.Validate()
	if err == nil || !strings.Contains(err.Error(), "port: a oneshot launch runs to completion") || !strings.Contains(err.Error(), "restart: a oneshot launch") {
		t.Errorf("oneshot with a port and a restart: %v", err)
	}
	l = &Launch{Name: "a", Command: []string{"true"}, Oneshot: true, Stop: Stop{Signal: "SIGQUIT", Timeout: time.Second}}
	if err := l.Validate(); err != nil {
		t.Errorf("a valid oneshot: %v", err)
	}
}
