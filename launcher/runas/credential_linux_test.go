package runas

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/spec"
)

// TestCredentialNoSuch checks that a User or Group naming nothing on
// this machine is a failure.Error of FixNoSuchUser or FixNoSuchGroup, in Go
// words, before anything starts.
func TestCredentialNoSuch(t *testing.T) {
	for _, tc := range []struct {
		l   *spec.Launch
		fix failure.Fix
		msg string
	}{
		{&spec.Launch{Name: "u", User: "no-such-user-childproof"}, failure.FixNoSuchUser, `launch "u": User "no-such-user-childproof": no such user on this machine`},
		{&spec.Launch{Name: "g", Group: "no-such-group-childproof"}, failure.FixNoSuchGroup, `launch "g": Group "no-such-group-childproof": no such group on this machine`},
	} {
		_, err := Credential(tc.l)
		var e *failure.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: err = %v, want a *failure.Error", tc.l.Name, err)
		}
		if diff := cmp.Diff([]any{tc.fix, tc.msg, true}, []any{e.Fix, e.Msg, e.Spec == tc.l}); diff != "" {
			t.Errorf("%s: Fix, Msg, Spec (-want +got):\n%s", tc.l.Name, diff)
		}
	}
}
