package schema

import (
	"path/filepath"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

func TestSecrets(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{
		"token.txt": "file-canary-value\n",
		".env":      "FROM_FILE=envfile-canary\nSHORT=1\n",
		"s.hcl": `launch "a" {
  command  = ["true", "--key=${env("API_KEY")}", file("token.txt")]
  env_file = ".env"
  env = {
    PLAIN_SECRET = "listed-canary"
    PUBLIC       = "public-value"
  }
  secret = ["PLAIN_SECRET", "FROM_SET"]
}
`,
	})
	f, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{LookupEnv: lookupFrom(map[string]string{"API_KEY": "env-canary-value"})})
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	l := f.Launches[0]
	if diff := cmp.Diff([]string{"PLAIN_SECRET", "FROM_SET"}, l.Secret); diff != "" {
		t.Errorf("Secret (-want +got):\n%s", diff)
	}
	s := l.Mask()
	got := s.Argv(append(l.Command, "listed-canary", "public-value", "x=envfile-canary", "1"))
	want := []string{"true", "--key=<API_KEY>", "<file:token.txt>", "<PLAIN_SECRET>", "public-value", "x=<FROM_FILE>", "1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("masked argv (-want +got):\n%s", diff)
	}
	if got, want := s.Text("token file-canary-value here"), "token <file:token.txt> here"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestSecretListNames(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"s.hcl": `launch "a" {
  command = ["true"]
  secret  = ["OK", "BAD NAME"]
}
`})
	_, _, diags := Load(filepath.Join(dir, "s.hcl"), LoadOptions{})
	lines := diagLines(diags)
	if len(lines) != 1 {
		t.Fatalf("want one diagnostic, got %v", lines)
	}
	if diff := cmp.Diff([]string{"3:20 error: Invalid variable name"}, lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLaunchesNothingUnsetEnv: for a command that launches nothing an
// unset env() is an unknown value, not an error; parts holding one are
// listed in Unknown and not validated.
func TestLaunchesNothingUnsetEnv(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"s.hcl": `launch "a" {
  command = ["true", "--key", env("API_KEY"), "--x=${env("X")}"]
  dir     = env("WORKDIR")
  env = {
    API_KEY = env("API_KEY")
    PLAIN   = "p"
  }
  require = ["API_KEY"]
  ready {
    timeout = env("TIMEOUT")
  }
}
`})
	path := filepath.Join(dir, "s.hcl")
	if _, _, diags := Load(path, LoadOptions{LookupEnv: lookupFrom(nil)}); !diags.HasErrors() {
		t.Fatal("a command that launches must refuse an unset env()")
	}
	f, _, diags := Load(path, LoadOptions{LookupEnv: lookupFrom(nil), LaunchesNothing: true})
	if diags.HasErrors() {
		t.Fatalf("diagnostics: %v", diagLines(diags))
	}
	l := f.Launches[0]
	want := map[string]bool{"command[2]": true, "command[3]": true, "dir": true, "env[API_KEY]": true, "ready.timeout": true}
	if diff := cmp.Diff(want, l.Unknown); diff != "" {
		t.Errorf("Unknown (-want +got):\n%s", diff)
	}
	if l.Dir != dir || l.Env["PLAIN"] != "p" {
		t.Errorf("dir %q env %v", l.Dir, l.Env)
	}
}
