package statedir

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeptLogNumber: keptLogNumber reads what KeepRoundLog's fmt.Sscanf
// with fmt.Sprintf's check read.
func TestKeptLogNumber(t *testing.T) {
	names := []string{"000001.log", "000000.log", "123456.log", "999999.log", "1234567.log", "00001.log", "-00001.log", "-00000.log",
		"-99999.log", "+00001.log", "0000a1.log", "000001.json", "000001.log.1", ".000001.log", "000001.logx", " 00001.log", "0x0001.log",
		"00_001.log", "", ".log", "-12345.log", "--0001.log", "000001", "١٢٣٤٥٦.log"}
	for i := range 300 {
		names = append(names, fmt.Sprintf("%06d.log", i*3331-400000), fmt.Sprintf("%d.log", i))
	}
	for _, name := range names {
		var m int
		_, err := fmt.Sscanf(name, "%06d.log", &m)
		wantOK := err == nil && name == fmt.Sprintf("%06d.log", m)
		got, ok := keptLogNumber(name)
		if ok != wantOK || ok && got != m {
			t.Errorf("keptLogNumber(%q) = %d, %v; want %d, %v", name, got, ok, m, wantOK)
		}
	}
}

// TestKeepRoundLogPrunes: the round whose write made the rounds directory
// keeps its log without listing the directory; later rounds remove the
// kept logs beyond keep, and so does a Store that did not make it.
func TestKeepRoundLogPrunes(t *testing.T) {
	dir := t.TempDir()
	kept := func(st *Store) []string {
		ents, err := os.ReadDir(st.RoundsDir("x"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			if _, ok := keptLogNumber(e.Name()); ok {
				out = append(out, e.Name())
			}
		}
		return out
	}
	var st *Store
	for i, want := range [][]string{
		{"000001.log"},
		{"000001.log", "000002.log"},
		{"000002.log", "000003.log"},
		{"000003.log", "000004.log"},
	} {
		n := i + 1
		if n == 1 || n == 3 {
			// Round 3's Store did not make the directory.
			var err error
			if st, err = Open(dir); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(st.LogPath("x"), []byte("line\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveRound(&Round{N: n, Name: "x"}, false); err != nil {
			t.Fatal(err)
		}
		if got := st.KeepRoundLog("x", n, 1); got != filepath.Join(st.RoundsDir("x"), fmt.Sprintf("%06d.log", n)) {
			t.Errorf("round %d: KeepRoundLog = %q", n, got)
		}
		if diff := cmp.Diff(want, kept(st)); diff != "" {
			t.Errorf("round %d: kept logs (-want +got):\n%s", n, diff)
		}
	}
}
