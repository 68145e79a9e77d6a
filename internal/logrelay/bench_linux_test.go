package logrelay

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/redact"
)

// benchSet is the bench set: ten secrets, none in the output.
func benchSet() *redact.Set {
	var secs []redact.Secret
	for i := range 10 {
		secs = append(secs, redact.Secret{Name: fmt.Sprintf("BENCH_SECRET_%d", i), Value: fmt.Sprintf("bench-secret-value-%d-%s", i, strings.Repeat("k", 20+i))})
	}
	return redact.Of(secs, nil)
}

// benchLines is a worker's chatty output: log lines, 1 MiB.
var benchLines = []byte(strings.Repeat("2026-12-01T23:00:00Z INFO request served path=/v1/models status=200 bytes=1532 took=1.2ms\n", 1<<20/92))

// benchCopy pushes b.N times benchLines through a pipe into Copy, which
// writes the log (and, with tee, a console) to files.
func benchCopy(b *testing.B, tee bool) {
	dir := b.TempDir()
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer logf.Close()
	var also io.Writer
	if tee {
		con, err := os.Create(filepath.Join(dir, "console"))
		if err != nil {
			b.Fatal(err)
		}
		defer con.Close()
		also = con
	}
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchLines)))
	b.ReportAllocs()
	go func() {
		for range b.N {
			w.Write(benchLines)
		}
		w.Close()
	}()
	b.ResetTimer()
	if err := copyForBench(r, logf, also, benchSet()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCopy: the relay's loop (the log only).
func BenchmarkCopy(b *testing.B) { benchCopy(b, false) }

// BenchmarkCopyTee: the foreground reader (the log and the console).
func BenchmarkCopyTee(b *testing.B) { benchCopy(b, true) }
