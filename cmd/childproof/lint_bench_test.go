package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
)

// BenchmarkLintCommand runs `childproof lint --format json` over the 1,000
// scripts of internal/testsupport (WriteCorpus) in one process, as `make bench` does:
// file reading, parsing, the walk and the report.
func BenchmarkLintCommand(b *testing.B) {
	dir := b.TempDir()
	paths, err := testsupport.WriteCorpus(dir, 1000)
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"lint", "--format", "json", "--dir", dir}
	for _, p := range paths {
		r, _ := filepath.Rel(dir, p)
		args = append(args, r)
	}
	b.ReportAllocs()
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code > 1 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
		io.Discard.Write(out.Bytes())
	}
}
