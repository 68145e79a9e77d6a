package redact

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLooksSecret(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
		masked   bool
	}{
		{[]string{"srv", "--token", "abc123", "--port", "80"}, []string{"srv", "--token", Guessed, "--port", "80"}, true},
		{[]string{"srv", "--api-key=s3cr3t", "-v"}, []string{"srv", "--api-key=" + Guessed, "-v"}, true},
		{[]string{"srv", "-password", "hunter2"}, []string{"srv", "-password", Guessed}, true},
		{[]string{"srv", "--db_password", "--verbose"}, []string{"srv", "--db_password", "--verbose"}, false},
		{[]string{"env", "GITHUB_TOKEN=ghp_x", "run"}, []string{"env", "GITHUB_TOKEN=" + Guessed, "run"}, true},
		{[]string{"srv", "--db=postgres://app:pw1234@db:5432/x"}, []string{"srv", "--db=postgres://app:" + Guessed + "@db:5432/x"}, true},
		{[]string{"srv", "--monkey", "banana", "--keys-dir=/etc/k"}, []string{"srv", "--monkey", "banana", "--keys-dir=/etc/k"}, false},
		{[]string{"srv", "--secret-file", "/run/s"}, []string{"srv", "--secret-file", Guessed}, true},
		{[]string{"/usr/bin/token"}, []string{"/usr/bin/token"}, false},
	} {
		got, masked := LooksSecret(tc.in)
		if diff := cmp.Diff(tc.want, got); diff != "" || masked != tc.masked {
			t.Errorf("LooksSecret(%q) = %q, %v; want %q, %v (%s)", tc.in, got, masked, tc.want, tc.masked, diff)
		}
	}
}
