package statedir

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"testing"
)

// TestLoadFile: LoadFile's record is Load's, and its bytes are
// ReadRecordFile's, from one read: none for a missing record, the file's
// for one that fails authentication (and Load's error with them).
func TestLoadFile(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, r, err := st.LoadFile("web")
	if b != nil || r != nil || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: LoadFile = %q, %v, %v; want nil, nil, fs.ErrNotExist", b, r, err)
	}
	if err := st.Save(&Record{Name: "web", Round: 3}); err != nil {
		t.Fatal(err)
	}
	b, r, err = st.LoadFile("web")
	if err != nil || r == nil || r.Name != "web" || r.Round != 3 {
		t.Fatalf("LoadFile = %v, %v", r, err)
	}
	if !bytes.Equal(b, st.ReadRecordFile("web")) {
		t.Errorf("LoadFile's bytes %q are not the file's", b)
	}
	tampered := bytes.Replace(b, []byte(`"round":3`), []byte(`"round":4`), 1)
	if bytes.Equal(tampered, b) {
		t.Fatalf("no round in %q", b)
	}
	if err := os.WriteFile(st.Files.Record("web"), tampered, 0o600); err != nil {
		t.Fatal(err)
	}
	b, r, err = st.LoadFile("web")
	if !bytes.Equal(b, tampered) || r != nil || !errors.Is(err, ErrUntrusted) {
		t.Errorf("tampered: LoadFile = %q, %v, %v; want its bytes, nil, ErrUntrusted", b, r, err)
	}
	if _, lerr := st.Load("web"); lerr == nil || lerr.Error() != err.Error() {
		t.Errorf("Load's error %v, LoadFile's %v", lerr, err)
	}
}
