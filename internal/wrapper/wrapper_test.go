package wrapper

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		argv []string
		want []string
	}{
		{[]string{"bash", "--noprofile", "--norc", "dispatch.sh", "-l"}, nil},
		{[]string{"bash", "-lic", "exec srv"}, []string{"login-shell", "interactive-shell"}},
		{[]string{"-bash"}, []string{"login-shell"}},
		{[]string{"/bin/bash", "--login", "x.sh"}, []string{"login-shell"}},
		{[]string{"sh", "-i"}, []string{"interactive-shell"}},
		{[]string{"sh", "-c", "srv -l -i"}, nil},
		{[]string{"bash", "-o", "pipefail", "-c", "x"}, nil},
		{[]string{"bash", "--rcfile", "-l", "x"}, nil},
		{[]string{"sudo", "srv"}, []string{"env-reset"}},
		{[]string{"sudo", "-E", "srv"}, nil},
		{[]string{"sudo", "--preserve-env=KEY", "srv"}, nil},
		{[]string{"sudo", "-i", "srv"}, []string{"login-shell", "env-reset"}},
		{[]string{"su", "-", "app"}, []string{"env-reset", "login-shell"}},
		{[]string{"runuser", "-u", "app", "srv"}, []string{"env-reset"}},
		{[]string{"python3", "-l"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := Classify(tt.argv); !cmp.Equal(got, tt.want) {
			t.Errorf("Classify(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
