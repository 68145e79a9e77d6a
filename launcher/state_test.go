package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/childproof/childproof/outcome"
)

func TestState(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the state dir needs a Unix system (owner and mode checks, flock)")
	}
	dir := filepath.Join(t.TempDir(), "state")
	st, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	st2, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Digest("A", "v") != st2.Digest("A", "v") {
		t.Error("the key changed between opens")
	}
	if st.Digest("A", "v") == st.Digest("B", "v") || st.Digest("A", "v") == st.Digest("A", "w") {
		t.Error("digests collide")
	}
	other, _ := OpenState(t.TempDir())
	if other.Digest("A", "v") == st.Digest("A", "v") {
		t.Error("two state dirs share a key")
	}
	for p, mode := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "key"): 0o600, filepath.Join(dir, "records"): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v (%v)", p, fi.Mode().Perm(), mode, err)
		}
	}
	rec := &Record{Name: "n", Env: map[string]string{"A": st.Digest("A", "v")}}
	if err := st.Save(rec); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load("n")
	if err != nil || got.Env["A"] != rec.Env["A"] {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "records", "n.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v", fi.Mode().Perm())
	}
	l1, err := st.TryLock("n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st2.TryLock("n"); outcomeOf(err) != outcome.Locked {
		t.Errorf("second lock: %v, want exit 6", err)
	}
	l1.Unlock()
	l2, err := st2.TryLock("n")
	if err != nil {
		t.Errorf("lock after unlock: %v", err)
	}
	l2.Unlock()
	// A mistaken --state-dir with other contents keeps its mode.
	home := t.TempDir()
	os.Chmod(home, 0o755)
	os.WriteFile(filepath.Join(home, "notes.txt"), nil, 0o644)
	OpenState(home)
	if fi, _ := os.Stat(home); fi.Mode().Perm() != 0o755 {
		t.Errorf("a foreign directory was chmod'ed to %v", fi.Mode().Perm())
	}
}

// outcomeOf is err's Outcome, 255 when it is not an *Error.
func outcomeOf(err error) outcome.Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Outcome
	}
	return 255
}
