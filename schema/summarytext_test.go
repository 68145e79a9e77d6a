package schema

import (
	"errors"
	"github.com/childproof/childproof/spec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSummaryWriteText: the text of `childproof check`'s summary, row by
// row, names and placeholders only.
func TestSummaryWriteText(t *testing.T) {
	rel := func(p string) string { return strings.TrimPrefix(p, "/work/") }
	tests := []struct {
		name string
		l    *Launch
		s    Summary
		o    SummaryText
		want string
	}{{
		name: "command, env file, secrets, ports, restart, depends_on",
		l: &Launch{
			Name:     "api",
			Env:      map[string]string{"TOKEN": "t", "MODE": "m"},
			Require:  []string{"MODEL", "MODE"},
			Ports:    []Port{{Name: "http", Number: 8080}, {Name: "admin", Number: 9090, Address: "0.0.0.0", AllowAllInterfaces: true}},
			Ready:    Ready{Timeout: 3 * time.Second},
			Attempts: 2, OnStale: StaleReplace,
			ForbidWrappers: []string{"login-shell"},
			Restart:        Restart{Policy: RestartOnFailure, Max: 3, Backoff: 2 * time.Second},
			DependsOn:      []string{"db", "cache"},
			Ranges:         Ranges{Block: spec.Range{Filename: "spec.hcl", Start: spec.Pos{Line: 5}}},
		},
		s: Summary{
			Argv:          []string{"bin/api", "--port", "8080", HiddenValue},
			Dir:           Shown{Value: "/work/proj"},
			EnvFile:       Shown{Value: "/work/proj/.env"},
			ReadyHTTP:     Shown{Value: "/healthz"},
			Secret:        []string{"TOKEN"},
			SecretFromEnv: []string{"MODE"},
			Env: []VarSource{
				{Name: "MODE", From: []VarOrigin{FromEnv, FromEnvFile}, Unknown: true},
				{Name: "TOKEN", From: []VarOrigin{FromEnv}},
			},
		},
		o: SummaryText{Path: rel, Worker: "comm api"},
		want: `launch "api" (spec.hcl:5)
  command    bin/api --port 8080 <from env>
  dir        proj
  env_file   proj/.env
  env        MODE   override (over env_file) (from the caller, not set here)
             TOKEN  override
  protected  MODE, MODEL, TOKEN
  require    MODEL, MODE
  secret     TOKEN; from env()/file(): MODE
  port       http 127.0.0.1:8080
  port       admin 0.0.0.0:9090 (all interfaces allowed)
  worker     comm api
  ready      GET /healthz answers 2xx, within 3s
  attempts   2
  on_stale   replace
  forbid     login-shell
  restart    on-failure, at most 3, the first after 2s (doubling, at most 30s)
  after      db, cache (up starts and verifies them first)
`,
	}, {
		name: "dispatch, hidden dir, no env, no port; no range",
		l:    &Launch{Name: "job", Secret: []string{"KEY"}},
		s: Summary{
			Dispatch: true,
			Argv:     []string{"run.sh", UnsetValue},
			Dir:      Shown{Hidden: true},
			Secret:   []string{"KEY"},
		},
		o: SummaryText{Path: rel, Worker: "the launched process"},
		want: `launch "job"
  dispatch   bash --noprofile --norc run.sh <from the caller, not set here>
  dir        <from env>
  env        none: the worker starts with an empty environment
  secret     KEY
  port       none declared: no port is checked
  worker     the launched process
  ready      the worker is found and verified, within 10s
  attempts   1
  on_stale   fail
  forbid     login-shell, interactive-shell, env-reset
`,
	}, {
		name: "env file error, secrets from env only, a port without ready.http; nil Path",
		l:    &Launch{Name: "b", Ports: []Port{{Name: "p", Number: 7000}}, Restart: Restart{Policy: RestartAlways, Backoff: time.Minute}},
		s: Summary{
			Argv:          []string{"srv"},
			Dir:           Shown{Value: "/work/proj"},
			EnvFile:       Shown{Hidden: true},
			SecretFromEnv: []string{"A", "B"},
			Env:           []VarSource{{Name: "PATH", From: []VarOrigin{FromInherit}}},
			EnvErr:        errors.New("env_file: cannot read .env"),
		},
		o: SummaryText{Worker: "the owner of port 7000"},
		want: `launch "b"
  command    srv
  dir        /work/proj
  env_file   <from env>
  env        env_file: cannot read .env
  env        PATH  inherit
  secret     from env()/file(): A, B
  port       p 127.0.0.1:7000
  worker     the owner of port 7000
  ready      the worker owns the port and accepts a TCP connect, within 10s
  attempts   1
  on_stale   fail
  forbid     login-shell, interactive-shell, env-reset
  restart    always, at most 5, the first after 1m0s (doubling, at most 1m0s)
`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.s.WriteText(&b, tt.l, tt.o); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("WriteText (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVarSourceDescribe: the text after a variable's name in check's env
// rows.
func TestVarSourceDescribe(t *testing.T) {
	tests := []struct {
		v    VarSource
		want string
	}{
		{VarSource{Name: "A", From: []VarOrigin{FromEnv}}, "override"},
		{VarSource{Name: "A", From: []VarOrigin{FromEnv, FromEnvFile, FromInherit}}, "override (over env_file, inherit)"},
		{VarSource{Name: "A", From: []VarOrigin{FromEnvFile}}, "env_file"},
		{VarSource{Name: "A", From: []VarOrigin{FromEnv}, Unknown: true}, "override (from the caller, not set here)"},
		{VarSource{Name: "A", From: []VarOrigin{FromInherit}, Unset: true}, "inherit (unset here: not passed)"},
		{VarSource{Name: "CUDA_*", From: []VarOrigin{FromInheritPattern}, Matches: 1}, "inherit pattern (1 match here)"},
		{VarSource{Name: "CUDA_*", From: []VarOrigin{FromInheritPattern}}, "inherit pattern (0 matches here)"},
		{VarSource{Name: "NCCL_*", From: []VarOrigin{FromInheritPattern}, Matches: 3}, "inherit pattern (3 matches here)"},
		{VarSource{Name: "BASH_ENV", From: []VarOrigin{FromEnv, FromInherit}, Removed: true}, "override (over inherit) — removed before launch"},
		{VarSource{Name: "ENV", From: []VarOrigin{FromInherit}, Unset: true, Removed: true}, "inherit (unset here: not passed) — removed before launch"},
		{VarSource{Name: "A"}, ""},
	}
	for _, tt := range tests {
		if got := tt.v.Describe(); got != tt.want {
			t.Errorf("%+v.Describe() = %q, want %q", tt.v, got, tt.want)
		}
	}
}
