package relaunch

import (
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
	"github.com/google/go-cmp/cmp"
)

// TestRelaunchBase: a relaunch runs as the recorded launch ran, and knows
// when the spec changed since.
func TestRelaunchBase(t *testing.T) {
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &schema.Launch{Name: "api", Command: []string{"sleep", "600"}}
	// The record a detached launch of l's spec, hash sha256:one, leaves.
	if err := st.Save(&launcher.Record{Name: "api", Detached: true, SpecHash: "sha256:one"}); err != nil {
		t.Fatal(err)
	}
	type base struct {
		Record      string
		Detach      bool
		SpecChanged bool
	}
	of := func(b Base) base {
		o := base{Detach: b.Detach, SpecChanged: b.SpecChanged}
		if b.Record != nil {
			o.Record = b.Record.Name
		}
		return o
	}
	fg := &launcher.Record{Name: "api", SpecHash: "sha256:one"}
	for _, tc := range []struct {
		name     string
		launch   *schema.Launch
		specHash string
		rec      *launcher.Record
		want     base
	}{
		{"read: the same spec", l, "sha256:one", nil, base{Record: "api", Detach: true}},
		{"read: the spec changed", l, "sha256:two", nil, base{Record: "api", Detach: true, SpecChanged: true}},
		{"read: no spec file", l, "", nil, base{Record: "api", Detach: true}},
		{"given: a foreground launch", l, "sha256:two", fg, base{Record: "api", SpecChanged: true}},
		{"given: a record without a spec hash", l, "sha256:two", &launcher.Record{Name: "api"}, base{Record: "api"}},
		{"nothing recorded", &schema.Launch{Name: "missing"}, "sha256:one", nil, base{}},
	} {
		if diff := cmp.Diff(tc.want, of(ReadBase(st, tc.launch, tc.specHash, tc.rec))); diff != "" {
			t.Errorf("%s: ReadBase (-want +got):\n%s", tc.name, diff)
		}
	}
}
