package launcher

import (
	"context"
	"errors"
	"testing"

	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

// TestStartRefusalReleasesHeldLock: a start refused before anything runs
// lets go of the lock it was handed (relaunch hands its own), for each of
// checkStart's refusals — a job of several workers without a selector was
// the one that kept it.
func TestStartRefusalReleasesHeldLock(t *testing.T) {
	st, err := OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		l    *schema.Launch
	}{
		{"a job without a selector", &schema.Launch{Name: "job", Command: []string{"/bin/true"}, Worker: schema.Worker{Count: 2}}},
		{"an exe that never matches", &schema.Launch{Name: "exe", Command: []string{"/bin/true"}, Worker: schema.Worker{Exe: "relative/exe"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lk, err := st.TryLock(tc.l.Name)
			if err != nil {
				t.Fatal(err)
			}
			defer lk.Unlock()
			_, err = startHeld(context.Background(), tc.l, Options{State: st}, Held{Lock: lk, Keep: true})
			var e *Error
			if !errors.As(err, &e) || e.Outcome != outcome.Usage {
				t.Fatalf("startHeld = %v, want a usage *Error", err)
			}
			again, err := st.TryLock(tc.l.Name)
			if err != nil {
				t.Fatalf("the lock is still held after the refusal: %v", err)
			}
			again.Unlock()
		})
	}
}
