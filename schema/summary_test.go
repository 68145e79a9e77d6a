package schema

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSummary: what check shows of a launch names no value that is
// secret or came from env() or file(), and says which env names are
// secret.
func TestSummary(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		env   map[string]string // the caller's (LookupEnv)
		extra map[string]string // more files
		want  Summary
	}{{
		name: "plain command, quoted where needed",
		spec: `launch "a" {
  command = ["echo", "hello world", "it's", "--x=1,2"]
}`,
		want: Summary{Argv: []string{"echo", "'hello world'", `'it'\''s'`, "--x=1,2"}, Dir: Shown{Value: "DIR"}},
	}, {
		name: "env() and file() in argv, dir and worker",
		spec: `launch "a" {
  command = ["srv", "--key", env("API_KEY"), file("token.txt"), "--tag=${env("TAG")}"]
  dir     = env("WORKDIR")
  worker {
    exe = env("EXE")
  }
  port "http" {
    number = 8000
  }
  ready {
    http = env("READY")
  }
}`,
		env:   map[string]string{"API_KEY": "env-canary-value", "TAG": "t1", "WORKDIR": "/", "EXE": "/bin/srv", "READY": "/health"},
		extra: map[string]string{"token.txt": "file-canary-value\n"},
		want: Summary{
			Argv:      []string{"srv", "--key", HiddenValue, HiddenValue, HiddenValue},
			Dir:       Shown{Hidden: true},
			WorkerExe: Shown{Hidden: true},
			ReadyHTTP: Shown{Hidden: true},
		},
	}, {
		name: "a secret's literal value again in argv is <NAME>",
		spec: `launch "a" {
  command = ["srv", "--token=listed-canary", "public"]
  env = {
    TOKEN  = "listed-canary"
    FROM   = env("FROM")
    PUBLIC = "public"
  }
  env_file = ".env"
  secret = ["TOKEN", "LATER"]
  worker {
    comm = "srv"
  }
}`,
		env:   map[string]string{"FROM": "from-canary"},
		extra: map[string]string{".env": "A=1\n"},
		want: Summary{
			Argv:          []string{"srv", "--token=<TOKEN>", "public"},
			Dir:           Shown{Value: "DIR"},
			EnvFile:       Shown{Value: "DIR/.env"},
			WorkerComm:    Shown{Value: "srv"},
			Secret:        []string{"TOKEN", "LATER"},
			SecretFromEnv: []string{"FROM"},
			Env: []VarSource{
				{Name: "A", From: []VarOrigin{FromEnvFile}},
				{Name: "FROM", From: []VarOrigin{FromEnv}},
				{Name: "PUBLIC", From: []VarOrigin{FromEnv}},
				{Name: "TOKEN", From: []VarOrigin{FromEnv}},
			},
		},
	}, {
		name: "dispatch; an env() the caller did not set",
		spec: `launch "a" {
  dispatch = ["run.sh", env("MODE")]
}`,
		extra: map[string]string{"run.sh": "#!/bin/bash\nexec true\n"},
		want:  Summary{Dispatch: true, Argv: []string{"run.sh", UnsetValue}, Dir: Shown{Value: "DIR"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// inherit = [] passes none of the caller's variables.
			spec := strings.Replace(tt.spec, "{\n", "{\n  inherit = []\n", 1)
			files := map[string]string{"s.hcl": spec + "\n"}
			for k, v := range tt.extra {
				files[k] = v
			}
			dir := testsupport.WriteTree(t, files)
			f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{LookupEnv: lookupFrom(tt.env), MissingProgramOK: true, LaunchesNothing: true})
			if diags.HasErrors() {
				t.Fatalf("diagnostics: %v", diagLines(diags))
			}
			got := f.Launches[0].Summary(nil)
			// The spec's directory is a temporary one: name it DIR.
			rel := func(s Shown) Shown {
				if r, err := filepath.Rel(dir, s.Value); err == nil && s.Value != "" {
					s.Value = filepath.Join("DIR", r)
				}
				return s
			}
			got.Dir, got.EnvFile = rel(got.Dir), rel(got.EnvFile)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Summary (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSecretName: a --set of a name is never stored when the spec's
// secret list names it or its env value comes from env() or file(); an
// env file's names are not secret.
func TestSecretName(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{
		".env": "FILE_VAR=x\n",
		"s.hcl": `launch "a" {
  command  = ["true"]
  env_file = ".env"
  env = {
    LISTED = "l"
    FROM   = env("FROM")
    PLAIN  = "p"
  }
  secret = ["LISTED", "NOT_IN_ENV"]
}
`})
	f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{LookupEnv: lookupFrom(map[string]string{"FROM": "v"})})
	if diags.HasErrors() {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	l := f.Launches[0]
	got := map[string]bool{}
	for _, n := range []string{"LISTED", "NOT_IN_ENV", "FROM", "PLAIN", "FILE_VAR", "ELSE"} {
		got[n] = l.SecretName(n)
	}
	want := map[string]bool{"LISTED": true, "NOT_IN_ENV": true, "FROM": true, "PLAIN": false, "FILE_VAR": false, "ELSE": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SecretName (-want +got):\n%s", diff)
	}
}

func TestPortHostPort(t *testing.T) {
	for _, c := range []struct {
		p    Port
		want string
	}{
		{Port{Number: 8000}, "127.0.0.1:8000"},
		{Port{Address: "0.0.0.0", Number: 80}, "0.0.0.0:80"},
		{Port{Address: "::1", Number: 8000}, "[::1]:8000"},
	} {
		if got := c.p.HostPort(); got != c.want {
			t.Errorf("%+v.HostPort() = %q, want %q", c.p, got, c.want)
		}
	}
}
