package statedir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLegacyLayout: a state dir written with the legacy naming (a..b's
// record in records/a__b.json, no layout file) keeps working: opening it
// migrates the files to their encoded names; read-only, Load reads the
// legacy file, but only for the name the record states (a__b, which
// shared the file, finds nothing).
func TestLegacyLayout(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the state dir needs Linux")
	}
	for _, readOnly := range []bool{false, true} {
		dir := t.TempDir()
		st, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		rec := testRecord()
		rec.Name = "a..b"
		rec.Cgroup = ""
		if err := st.Save(rec); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, LayoutFile))
		if err := os.Rename(st.Files.Record("a..b"), filepath.Join(dir, "records", "a__b.json")); err != nil {
			t.Fatal(err)
		}
		if readOnly {
			if os.Geteuid() == 0 {
				// root writes through modes: stand for a read-only
				// state dir by leaving the layout as it is and not
				// reopening.
			} else {
				os.Chmod(filepath.Join(dir, "records"), 0o500)
				defer os.Chmod(filepath.Join(dir, "records"), 0o700)
			}
		} else if st, err = Open(dir); err != nil {
			t.Fatal(err)
		}
		got, err := st.Load("a..b")
		if err != nil {
			t.Fatalf("readOnly=%v: Load(a..b): %v", readOnly, err)
		}
		if got.Name != "a..b" {
			t.Fatalf("Load(a..b) = record of %q", got.Name)
		}
		if _, err := st.Load("a__b"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("readOnly=%v: Load(a__b) = %v, want no record (the legacy file is a..b's)", readOnly, err)
		}
		_, lerr := os.Lstat(filepath.Join(dir, "records", "a_2e_2eb.json"))
		if migrated := lerr == nil; migrated == readOnly {
			t.Fatalf("readOnly=%v: migrated=%v", readOnly, migrated)
		}
		recs, err := st.Records()
		if err != nil || len(recs) != 1 || recs[0].Name != "a..b" {
			t.Fatalf("Records() = %v, %v", recs, err)
		}
	}
}
