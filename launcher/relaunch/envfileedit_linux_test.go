package relaunch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher"
)

// TestSyncEnvFiles walks relaunch --in-env-file's file side through its
// rounds: an edit, the edit carried, undone byte for byte, refused over a
// file someone changed, a secret's edit kept, one edit per file, and the
// put-back of a relaunch that failed.
func TestSyncEnvFiles(t *testing.T) {
	st, err := launcher.OpenState(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, ".env")
	orig := "# defaults\r\nexport X='1'   # fast\r\nY=2\r\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	v := func(s string) *string { return &s }

	// Round 2: --set X=0 --in-env-file.
	p2 := &launcher.RoundPlan{Base: map[string]launcher.Override{}, Overrides: map[string]launcher.Override{"X": {Name: "X", Value: v("0"), Round: 0}}}
	ch, _, err := syncEnvFiles(st, p2, map[string]string{"X": "0"}, map[string]string{"X": path})
	if err != nil {
		t.Fatal(err)
	}
	edited := "# defaults\r\nexport X='0'   # fast\r\nY=2\r\n"
	if got := read(); got != edited {
		t.Fatalf("edited file %q, want %q", got, edited)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	e := p2.Overrides["X"].EnvFile
	if len(ch) != 1 || ch[0].How != "edited" || ch[0].Line != 2 || e == nil || e.Old == nil || *e.Old != "'1'" || e.OldDigest != st.Digest("X", "1") {
		t.Fatalf("changes %+v, edit %+v", ch, e)
	}
	e.Round = 2

	// Round 3 carries it: nothing is touched.
	p3 := &launcher.RoundPlan{Base: map[string]launcher.Override{"X": p2.Overrides["X"]}, Overrides: map[string]launcher.Override{"X": p2.Overrides["X"]}}
	if ch, _, err := syncEnvFiles(st, p3, map[string]string{"X": "0"}, nil); err != nil || len(ch) != 0 || read() != edited {
		t.Fatalf("carried: changes %+v, err %v, file %q", ch, err, read())
	}

	// Someone edits another line: an undo is refused, naming it.
	os.WriteFile(path, []byte(strings.Replace(edited, "Y=2", "Y=3", 1)), 0o640)
	p4 := &launcher.RoundPlan{Base: map[string]launcher.Override{"X": p2.Overrides["X"]}, Overrides: map[string]launcher.Override{}}
	if _, _, err := syncEnvFiles(st, p4, nil, nil); err == nil || !strings.Contains(err.Error(), "line 3 differs") || !strings.Contains(err.Error(), "round 2") {
		t.Fatalf("undo over a changed file: %v", err)
	}
	os.WriteFile(path, []byte(edited), 0o640)

	// A second name in the same file while the first edit is carried.
	p5 := &launcher.RoundPlan{Base: map[string]launcher.Override{"X": p2.Overrides["X"]},
		Overrides: map[string]launcher.Override{"X": p2.Overrides["X"], "Y": {Name: "Y", Value: v("9")}}}
	if _, _, err := syncEnvFiles(st, p5, map[string]string{"X": "0", "Y": "9"}, map[string]string{"Y": path}); err == nil || !strings.Contains(err.Error(), "one edit per env file") {
		t.Fatalf("second edit in one file: %v", err)
	}

	// --unset X: back byte for byte.
	p6 := &launcher.RoundPlan{Base: map[string]launcher.Override{"X": p2.Overrides["X"]}, Overrides: map[string]launcher.Override{}}
	if ch, _, err := syncEnvFiles(st, p6, nil, nil); err != nil || len(ch) != 1 || ch[0].How != "restored" || read() != orig {
		t.Fatalf("undo: changes %+v, err %v, file %q", ch, err, read())
	}

	// A secret's edit keeps no old value: dropping it leaves the file.
	p7 := &launcher.RoundPlan{Base: map[string]launcher.Override{}, Overrides: map[string]launcher.Override{"X": {Name: "X", Secret: true}}}
	if _, _, err := syncEnvFiles(st, p7, map[string]string{"X": "s3cret-value"}, map[string]string{"X": path}); err != nil {
		t.Fatal(err)
	}
	if p7.Overrides["X"].EnvFile.Old != nil {
		t.Fatal("a secret's old value was kept")
	}
	secretFile := read()
	p8 := &launcher.RoundPlan{Base: map[string]launcher.Override{"X": p7.Overrides["X"]}, Overrides: map[string]launcher.Override{}}
	if ch, _, err := syncEnvFiles(st, p8, nil, nil); err != nil || len(ch) != 1 || ch[0].How != "kept" || read() != secretFile {
		t.Fatalf("secret undo: changes %+v, err %v", ch, err)
	}
	os.WriteFile(path, []byte(orig), 0o640)

	// A relaunch that fails puts the file back.
	p9 := &launcher.RoundPlan{Base: map[string]launcher.Override{}, Overrides: map[string]launcher.Override{"Z": {Name: "Z", Value: v("1")}}}
	ch, restore, err := syncEnvFiles(st, p9, map[string]string{"Z": "1"}, map[string]string{"Z": path})
	if err != nil || len(ch) != 1 || ch[0].How != "appended" || ch[0].Line != 4 || !strings.HasSuffix(read(), "Y=2\r\nZ=1\r\n") {
		t.Fatalf("append: changes %+v, err %v, file %q", ch, err, read())
	}
	restore()
	if read() != orig {
		t.Fatalf("after restore: %q", read())
	}
}
