package verify

import (
	"fmt"
	"sort"
)

// Expect is what verification checks in a worker's environ. It is plain
// data, safe for concurrent use while no one changes it.
type Expect struct {
	// Values maps names to the value the worker must have (compared as digests).
	Values map[string]string
	// Digests maps names to the digest the worker's value must have (used
	// when only a recorded digest is known).
	Digests map[string]string
	// Require names variables that must be present and non-empty.
	Require []string
	// Sources says where a known value of Values or Digests came from
	// when it is not an override ("inherit", "env_file"): the value
	// childproof passed the launch root, which the worker must still have.
	Sources map[string]string
}

// want is n's intended digest, from Values (digested with d) or else
// Digests; ok is false when neither knows one.
func (x Expect) want(d Digester, n string) (digest string, ok bool) {
	if val, has := x.Values[n]; has {
		return d.Digest(n, val), true
	}
	digest, ok = x.Digests[n]
	return digest, ok
}

// what names the known value of n in a message.
func (x Expect) what(n string) string {
	if src := x.Sources[n]; src != "" {
		return "value childproof passed the launch (" + src + ")"
	}
	return "intended value"
}

func (x Expect) names() []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for n := range x.Values {
		add(n)
	}
	for n := range x.Digests {
		add(n)
	}
	for _, n := range x.Require {
		add(n)
	}
	sort.Strings(out)
	return out
}

// String lists the names x checks, never a value.
func (x Expect) String() string { return fmt.Sprint(x.names()) }
