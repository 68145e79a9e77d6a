package statedir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLayoutNames(t *testing.T) {
	dir := t.TempDir()
	if got, err := (Layout{Dir: dir}).Names(); err != nil || got != nil {
		t.Fatalf("no records dir: got %q, %v; want none, nil", got, err)
	}
	rec := filepath.Join(dir, RecordsDir)
	if err := os.Mkdir(rec, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		Encode("api") + ".json",
		Encode("a..b") + ".json", // encoded: decodes to its name
		"legacy_name.json",       // not an encoding: its stem
		".api.json.tmp123",       // a temporary file
		".hidden.json",           // a temporary-looking name
		"notes.txt",              // not a record
	} {
		if err := os.WriteFile(filepath.Join(rec, f), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(rec, "dir.json"), 0o700); err != nil { // not a regular file
		t.Fatal(err)
	}
	got, err := (Layout{Dir: dir}).Names()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"a..b", "api", "legacy_name"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, LayoutFile)); !os.IsNotExist(err) {
		t.Errorf("Names wrote the layout file (stat: %v)", err)
	}
}

// TestLegacyDiffers: legacyDiffers is Legacy(name) != Encode(name).
func TestLegacyDiffers(t *testing.T) {
	for _, name := range []string{"", "a", "web-1", "A9", "a.b", "a..b", "a__b", "a/b", "a\x00b", "_", "-", "..", "a_", "é", "a b", "_5f", "a-_2e"} {
		if got, want := legacyDiffers(name), Legacy(name) != Encode(name); got != want {
			t.Errorf("legacyDiffers(%q) = %v, want %v", name, got, want)
		}
	}
}
