//go:build unix

package statedir

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func list(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestMigrate: a state dir of the legacy naming gets its files moved to
// the encoded names, names whose forms agree are left, a legacy file of
// another name is not taken, and LayoutFile is written once.
func TestMigrate(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range Subdirs {
		os.Mkdir(filepath.Join(dir, sub), 0o700)
	}
	v2 := func(name string) string {
		return `{"format":"childproof record v2","mac":"hmac-sha256:00"}` + "\n" + `{"name":"` + name + `"}` + "\n" + `{"name":"` + name + `"}` + "\n"
	}
	writeFile(t, filepath.Join(dir, "records", "a__b.json"), v2("a..b")) // the legacy file a..b and a__b shared
	writeFile(t, filepath.Join(dir, "records", "api.json"), v2("api"))
	writeFile(t, filepath.Join(dir, "records", "x.y.json"), `{"name":"x.y","mac":"hmac-sha256:00"}`) // v1
	writeFile(t, filepath.Join(dir, "records", "stray.json"), v2("other"))
	writeFile(t, filepath.Join(dir, "logs", "a__b.log"), "out\n")
	writeFile(t, filepath.Join(dir, "logs", "a__b.log.1"), "old\n")
	writeFile(t, filepath.Join(dir, "logs", "a__b.mask"), "{}")
	writeFile(t, filepath.Join(dir, "logs", "a__bc.log"), "not a__b's\n")
	writeFile(t, filepath.Join(dir, "logs", "x.y.log"), "xy\n")
	writeFile(t, filepath.Join(dir, "history", "a__b", "000001.json"), "{}")
	writeFile(t, filepath.Join(dir, "locks", "a__b.lock"), "")
	if Migrated(dir) {
		t.Fatal("a legacy state dir reads as migrated")
	}
	if err := Migrate(dir); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"history/a_2e_2eb/000001.json",
		"layout",
		"locks/a__b.lock",
		"logs/a_2e_2eb.log", "logs/a_2e_2eb.log.1", "logs/a_2e_2eb.mask",
		"logs/a__bc.log",
		"logs/x_2ey.log",
		"records/a_2e_2eb.json", "records/api.json", "records/stray.json", "records/x_2ey.json",
	}
	got := list(t, dir)
	if len(got) != len(want) {
		t.Fatalf("after Migrate: %q\nwant %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after Migrate: %q\nwant %q", got, want)
		}
	}
	if !Migrated(dir) {
		t.Fatal("not marked migrated")
	}
	// Once migrated, a legacy-looking file is left alone.
	writeFile(t, filepath.Join(dir, "records", "p.q.json"), v2("p.q"))
	if err := Migrate(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "records", "p.q.json")); err != nil {
		t.Fatal("a second Migrate moved files")
	}
}

func TestCleanTemps(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, ".api.json.1234")
	fresh := filepath.Join(dir, ".api.json.5678")
	other := filepath.Join(dir, ".web.json.1")
	rec := filepath.Join(dir, "api.json")
	for _, p := range []string{old, fresh, other, rec} {
		writeFile(t, p, "x")
	}
	past := time.Now().Add(-time.Minute)
	for _, p := range []string{old, other, rec} {
		os.Chtimes(p, past, past)
	}
	if n := CleanTemps(dir, "."+Encode("api")+".json."); n != 1 {
		t.Fatalf("CleanTemps removed %d, want 1", n)
	}
	got := list(t, dir)
	want := []string{".api.json.5678", ".web.json.1", "api.json"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("left %q, want %q", got, want)
	}
}
