package schema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

func TestVarSources(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{
		"spec.hcl": `launch "mixed" {
  command = ["true"]
  env_file = ".env"
  env = { PORT = "8080", TOKEN = env("CALLER_TOKEN") }
  inherit = ["PATH", "HOME", "PORT", "CUDA_*", "MISSING"]
}
launch "empty" {
  command = ["true"]
  inherit = []
}
launch "default" {
  command = ["true"]
}
launch "badfile" {
  command = ["true"]
  env_file = "gone.env"
  env = { A = "1" }
}
`,
		".env":     "PORT=9090\nREGION=eu\nHOME=/srv\nBASH_ENV=/etc/rc\n",
		"gone.env": "A=2\nB=3\n",
	})
	f, _, diags := Load(filepath.Join(dir, "spec.hcl"), LoadOptions{LookupEnv: lookupFrom(nil), LaunchesNothing: true})
	if diags.HasErrors() {
		for _, d := range diags {
			t.Error(d)
		}
		t.FailNow()
	}
	caller := []string{"PATH=/bin", "HOME=/root", "CUDA_VISIBLE_DEVICES=0", "CUDA_HOME=/cuda", "BASH_ENV=/x", "OTHER=1"}
	tests := []struct {
		launch  string
		want    []VarSource
		wantErr bool
	}{
		{"mixed", []VarSource{
			{Name: "BASH_ENV", From: []VarOrigin{FromEnvFile}, Removed: true},
			{Name: "CUDA_*", From: []VarOrigin{FromInheritPattern}, Matches: 2},
			{Name: "HOME", From: []VarOrigin{FromEnvFile, FromInherit}},
			{Name: "MISSING", From: []VarOrigin{FromInherit}, Unset: true},
			{Name: "PATH", From: []VarOrigin{FromInherit}},
			{Name: "PORT", From: []VarOrigin{FromEnv, FromEnvFile, FromInherit}},
			{Name: "REGION", From: []VarOrigin{FromEnvFile}},
			{Name: "TOKEN", From: []VarOrigin{FromEnv}, Unknown: true},
		}, false},
		{"empty", []VarSource{}, false},
		// The default inherit (PATH, HOME, LANG), sorted.
		{"default", []VarSource{
			{Name: "HOME", From: []VarOrigin{FromInherit}},
			{Name: "LANG", From: []VarOrigin{FromInherit}, Unset: true},
			{Name: "PATH", From: []VarOrigin{FromInherit}},
		}, false},
		// An env file that can no longer be read: its error, and the rest.
		{"badfile", []VarSource{{Name: "A", From: []VarOrigin{FromEnv}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.launch, func(t *testing.T) {
			l, err := f.Launch(tc.launch)
			if err != nil {
				t.Fatal(err)
			}
			if tc.launch == "badfile" {
				l.Inherit = []string{} // the case is about the file
				if err := os.Remove(filepath.Join(dir, "gone.env")); err != nil {
					t.Fatal(err)
				}
			}
			got, err := l.VarSources(caller)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("VarSources (-want +got):\n%s", diff)
			}
		})
	}
}
