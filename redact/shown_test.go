package redact

import "testing"

func TestMayShow(t *testing.T) {
	for _, tc := range []struct {
		shown, value string
		want         bool
	}{
		{"/usr/bin/server", "/usr/bin/server", true},
		{"<D>/sl", "/srv/models/sl", true},
		{"<D>/sl", "/srv/models/sl2", false},
		{"<D>/sl", "/sl", false}, // a placeholder stands for one byte or more
		{"/opt/<A>/bin/<B>", "/opt/x/y/bin/z", true},
		{"/opt/<A>/bin/<B>", "/usr/x/bin/z", false},
		{"<file:/etc/p>/x", "abc/x", true},
		{"a.b", "aXb", false}, // literal text is not a pattern
		{"<not a name>/x", "y/x", false},
		{"/x/sl", "/y/sl", false},
	} {
		if got := MayShow(tc.shown, tc.value); got != tc.want {
			t.Errorf("MayShow(%q, %q) = %v, want %v", tc.shown, tc.value, got, tc.want)
		}
	}
}
