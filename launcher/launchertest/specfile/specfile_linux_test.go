package specfile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/childproof/childproof/launcher"
)

// fatalTB records a Fatalf and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	fatal string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) Helper() {}

func TestStartBadSpec(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.hcl")
	if err := os.WriteFile(path, []byte("launch \"x\" {\n  nosuch = 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(f, path, "", nil, launcher.Options{})
	}()
	<-done
	if !strings.Contains(f.fatal, "bad.hcl:2") {
		t.Errorf("the failure has no file:line: %s", f.fatal)
	}
}
