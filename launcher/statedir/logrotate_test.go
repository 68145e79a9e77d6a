package statedir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRotateLogs(t *testing.T) {
	for _, tc := range []struct {
		keep int
		want map[string]string
	}{
		{3, map[string]string{"x.log.1": "now", "x.log.2": "one", "x.log.3": "two"}},
		{1, map[string]string{"x.log.1": "now"}},
		{0, map[string]string{}},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.log")
		for name, content := range map[string]string{"x.log": "now", "x.log.1": "one", "x.log.2": "two", "x.log.3": "three"} {
			os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600)
		}
		if err := rotateLogs(path, tc.keep); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			got[e.Name()] = string(b)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("keep %d (-want +got):\n%s", tc.keep, diff)
		}
	}
}

// TestRotateLogsLoweredKeep: logs beyond a lowered keep go, found by the
// listing (a gap in the numbers does not stop it); names that only look
// like rotated logs stay.
func TestRotateLogsLoweredKeep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.log")
	for _, name := range []string{"x.log", "x.log.1", "x.log.2", "x.log.5", "x.log.07", "x.log.x"} {
		os.WriteFile(filepath.Join(dir, name), []byte(name), 0o600)
	}
	if err := rotateLogs(path, 2); err != nil {
		t.Fatal(err)
	}
	var got []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff([]string{"x.log.07", "x.log.1", "x.log.2", "x.log.x"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
