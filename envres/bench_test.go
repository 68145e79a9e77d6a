package envres

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
)

var benchOverrides = []Override{{Name: "HF_HUB_ENABLE_HF_TRANSFER", Value: "0", Known: true}, {Name: "HF_HOME", Value: "/scratch", Known: true}}

// BenchmarkLintLarge lints one generated 10,000-line dispatch script.
func BenchmarkLintLarge(b *testing.B) {
	dir := b.TempDir()
	src := genDispatch(10_000, 1)
	if err := os.WriteFile(filepath.Join(dir, "dispatch.sh"), []byte(src), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("HF_HUB_ENABLE_HF_TRANSFER=1\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	cfg := Config{Dir: dir, Scripts: []string{"dispatch.sh"}, Overrides: benchOverrides}
	for b.Loop() {
		if _, err := Lint(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLintCorpus lints 1,000 generated dispatch scripts of about 60
// lines each, one Lint call per script (what a pre-commit hook does).
func BenchmarkLintCorpus(b *testing.B) {
	dir := b.TempDir()
	names := writeCorpus(b, dir, 1000, 60)
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range names {
			cfg := Config{Dir: dir, Scripts: []string{n}, Overrides: benchOverrides}
			if _, err := Lint(context.Background(), cfg); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestLintLargeBounded checks that a 50,000-line script lints, in bounded
// time and memory, and that the generated script really parses.
func TestLintLargeBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	dir := t.TempDir()
	src := genDispatch(50_000, 2)
	if n := strings.Count(src, "\n"); n < 49_000 {
		t.Fatalf("generated %d lines", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.sh"), []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := Lint(context.Background(), Config{Dir: dir, Scripts: []string{"d.sh"}, Overrides: benchOverrides})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 {
		t.Fatal("no file read")
	}
}

// TestWriteCorpus writes the benchmark corpus to $ENVRES_WRITE_CORPUS, for
// comparisons with other linters (docs/lint.md, "Speed").
func TestWriteCorpus(t *testing.T) {
	dir := os.Getenv("ENVRES_WRITE_CORPUS")
	if dir == "" {
		t.Skip("set ENVRES_WRITE_CORPUS=DIR to write the corpus")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeCorpus(t, dir, 1000, 60)
	if err := os.WriteFile(filepath.Join(dir, "large.sh"), []byte(genDispatch(10_000, 1)), 0o755); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkLintCorpusOneRun lints the 1,000 scripts in one Lint call, as
// `childproof lint scripts/*.sh` does.
func BenchmarkLintCorpusOneRun(b *testing.B) {
	dir := b.TempDir()
	names := writeCorpus(b, dir, 1000, 60)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		cfg := Config{Dir: dir, Scripts: names, Overrides: benchOverrides}
		if _, err := Lint(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLintBenchCorpus lints the 1,000 scripts of internal/testsupport (WriteCorpus)
// (`make bench`'s lint rows, 376k lines) in one Lint call, as the bench's
// `childproof lint scripts/*.sh` does, without overrides.
func BenchmarkLintBenchCorpus(b *testing.B) {
	dir := b.TempDir()
	paths, err := testsupport.WriteCorpus(dir, 1000)
	if err != nil {
		b.Fatal(err)
	}
	for i, p := range paths {
		paths[i], _ = filepath.Rel(dir, p)
	}
	b.ReportAllocs()
	for b.Loop() {
		cfg := Config{Dir: dir, Scripts: paths}
		if _, err := Lint(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckNesting runs the pre-parse nesting bound over the 1,000
// scripts of internal/testsupport (WriteCorpus) (376k lines), the scan every linted file
// gets before mvdan's parser.
func BenchmarkCheckNesting(b *testing.B) {
	var srcs [][]byte
	var n int64
	for i := range 1000 {
		src := []byte(testsupport.Script(uint64(i), testsupport.ScriptSize(i, 1000)))
		srcs = append(srcs, src)
		n += int64(len(src))
	}
	b.SetBytes(n)
	for b.Loop() {
		for _, src := range srcs {
			if err := CheckNesting("x.sh", src); err != nil {
				b.Fatal(err)
			}
		}
	}
}
