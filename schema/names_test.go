package schema

import (
	"github.com/childproof/childproof/internal/specrule"
	"regexp"
	"testing"
)

// TestNameMatchers checks the hand-written name matchers against the
// regular expressions they replace, on every short string over an
// alphabet that covers each character class and its boundaries.
func TestNameMatchers(t *testing.T) {
	envRE := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	launchRE := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	alphabet := []byte("aZ09_.-/: @[`{\x00\xff")
	var walk func(b []byte, depth int)
	walk = func(b []byte, depth int) {
		s := string(b)
		if got, want := IsEnvName(s), envRE.MatchString(s); got != want {
			t.Errorf("IsEnvName(%q) = %v, want %v", s, got, want)
		}
		if got, want := specrule.IsLaunchName(s), launchRE.MatchString(s); got != want {
			t.Errorf("specrule.IsLaunchName(%q) = %v, want %v", s, got, want)
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			walk(append(b, c), depth-1)
		}
	}
	walk(nil, 3)
	for _, n := range []int{63, 64, 65, 200} {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a'
		}
		s := string(b)
		if got, want := specrule.IsLaunchName(s), launchRE.MatchString(s); got != want {
			t.Errorf("specrule.IsLaunchName(%d bytes) = %v, want %v", n, got, want)
		}
	}
}
