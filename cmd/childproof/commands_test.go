package main

import (
	"bytes"
	"context"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

// otherPlatforms are the platforms where lint, check, import and export
// are used and the launching commands are stubs.
var otherPlatforms = []string{"darwin", "windows"}

// TestCommandTable: the table and the registered constructors agree, so
// that a new command cannot be missing from help or from the stubs
// elsewhere; a command that does not need Linux is built, on every
// platform, from a file compiled there.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, ci := range commandTable {
		if seen[ci.name] {
			t.Errorf("%s is twice in commandTable", ci.name)
		}
		seen[ci.name] = true
		if ci.short == "" {
			t.Errorf("%s has no short help in commandTable", ci.name)
		}
		f, ok := constructors[ci.name]
		if !ok {
			if runtime.GOOS == "linux" || !ci.needsLinux {
				t.Errorf("%s is in commandTable but registers no constructor on %s", ci.name, runtime.GOOS)
			}
			continue
		}
		if use := strings.Fields(f(&app{}).Use)[0]; use != ci.name {
			t.Errorf("the constructor registered as %s makes command %q", ci.name, use)
		}
		if ci.needsLinux {
			continue
		}
		file := sourceFile(f)
		for _, goos := range otherPlatforms {
			ctx := build.Default
			ctx.GOOS, ctx.GOARCH = goos, "amd64"
			if ok, err := ctx.MatchFile(".", file); err != nil || !ok {
				t.Errorf("%s does not need Linux, but its constructor's file %s is not built on %s (%v): move it to a portable file, or mark the command needsLinux",
					ci.name, file, goos, err)
			}
		}
	}
	for name := range constructors {
		if !seen[name] {
			t.Errorf("command %s is registered but not in commandTable: add it there, saying whether it needs Linux", name)
		}
	}
}

// sourceFile names the file of this package that defines f (the test
// runs in the package's directory; the base name also holds under -trimpath).
func sourceFile(f func(*app) *cobra.Command) string {
	pc := reflect.ValueOf(f).Pointer()
	file, _ := runtime.FuncForPC(pc).FileLine(pc)
	return filepath.Base(file)
}

// TestNeedsLinuxStubs runs every command as a macOS or Windows binary
// would have it: a command that needs Linux exits 2 saying so, whatever
// its arguments; help lists every command.
func TestNeedsLinuxStubs(t *testing.T) {
	for _, goos := range otherPlatforms {
		var stdout, stderr bytes.Buffer
		if code := runOn(context.Background(), goos, []string{"--help"}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: --help: exit %d: %s", goos, code, stderr.String())
		}
		for _, ci := range commandTable {
			if !strings.Contains(stdout.String(), "  "+ci.name+" ") {
				t.Errorf("%s: help does not list %s:\n%s", goos, ci.name, stdout.String())
			}
			if !ci.needsLinux {
				continue
			}
			for _, args := range [][]string{{ci.name}, {ci.name, "--format", "json", "x.hcl"}, {ci.name, "--help"}} {
				var stdout, stderr bytes.Buffer
				code := runOn(context.Background(), goos, args, nil, &stdout, &stderr)
				want := "childproof: error: " + ci.name + " needs Linux (it reads /proc and uses pidfds); this is " + goos + "\n" +
					"childproof: hint: check, lint, import, export, install and version work here; run the launch on a Linux machine\n"
				if code != exitUsage.Code() || stdout.Len() != 0 || stderr.String() != want {
					t.Errorf("%s: %q: exit %d, stdout %q, stderr %q; want exit 2 and\n%s", goos, args, code, stdout.String(), stderr.String(), want)
				}
			}
		}
	}
}

// TestPortableCommandsSameOutput runs lint, check, import and export on
// every shipped example as the Linux, macOS and Windows binaries have
// them: the output and exit status are the same.
func TestPortableCommandsSameOutput(t *testing.T) {
	// A copy of the examples, with the program they launch in place.
	tmp := t.TempDir()
	if err := os.CopyFS(filepath.Join(tmp, "examples"), os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(tmp, "bin"), 0o755)
	if err := os.WriteFile(filepath.Join(tmp, "bin", "mock-llm"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(tmp, "examples")
	specs, _ := filepath.Glob(filepath.Join(examples, "*", "*.hcl"))
	var scripts []string
	filepath.WalkDir(examples, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".sh") && !strings.HasSuffix(p, "demo.sh") {
			scripts = append(scripts, p)
		}
		return nil
	})
	if len(specs) < 5 || len(scripts) < 3 {
		t.Fatalf("examples not found: %d specs, %d scripts", len(specs), len(scripts))
	}
	var runs [][]string
	for _, s := range specs {
		runs = append(runs, []string{"check", s}, []string{"check", "--format", "json", s})
		for _, name := range launchNames(t, s) {
			for _, to := range []string{"systemd", "k8s", "slurm", "nomad"} {
				runs = append(runs, []string{"export", "--to", to, "--image", "registry.example/x:1", s + ":" + name})
			}
		}
	}
	for _, s := range scripts {
		runs = append(runs, []string{"lint", s}, []string{"lint", "--format", "sarif", s}, []string{"import", s, "-o", filepath.Join(tmp, "imported.hcl")})
	}
	runs = append(runs, []string{"version"})
	codes := map[int]int{}
	for _, args := range runs {
		var want [2]bytes.Buffer
		code := runOn(context.Background(), "linux", args, nil, &want[0], &want[1])
		codes[code]++
		for _, goos := range otherPlatforms {
			var got [2]bytes.Buffer
			if c := runOn(context.Background(), goos, args, nil, &got[0], &got[1]); c != code {
				t.Errorf("%q: exit %d on %s, %d on linux", args, c, goos, code)
			}
			if d := cmp.Diff(want[0].String()+want[1].String(), got[0].String()+got[1].String()); d != "" {
				t.Errorf("%q: output differs on %s (-linux +%s):\n%s", args, goos, goos, d)
			}
		}
	}
	// The runs reach the commands' work, not only their usage errors.
	if codes[exitOK.Code()] < len(runs)/3 {
		t.Errorf("only %d of %d runs exited 0 (%v)", codes[exitOK.Code()], len(runs), codes)
	}
}

var launchBlock = regexp.MustCompile(`(?m)^launch "([^"]+)"`)

// launchNames are the names of the launch blocks of the spec at path.
func launchNames(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range launchBlock.FindAllStringSubmatch(string(b), -1) {
		names = append(names, m[1])
	}
	return names
}

// linuxOnlyPackages read /proc, pidfds or sock_diag, or launch.
var linuxOnlyPackages = []string{"launcher", "verify", "proc", "internal/probe", "internal/pidfd", "internal/sockdiag"}

// linuxOnlyFiles are the files of the package in dir that Linux builds and
// macOS does not (_linux.go files, //go:build linux).
func linuxOnlyFiles(t *testing.T, dir string) []string {
	files := map[string][]string{}
	for _, goos := range []string{"linux", "darwin"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = goos, "amd64"
		p, err := ctx.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s on %s: %v", dir, goos, err)
		}
		files[goos] = p.GoFiles
	}
	var only []string
	for _, f := range files["linux"] {
		if !slices.Contains(files["darwin"], f) {
			only = append(only, f)
		}
	}
	return only
}

// TestPortableCommandsNoLinuxPackages: the packages that lint, check,
// import and export do their work with reach none of the packages that
// read /proc or launch, nor any package with Linux-only files, on macOS
// and Windows as on Linux (cmd itself
// uses launcher and verify only for names: exit codes, SecretName,
// DefaultStateDir).
func TestPortableCommandsNoLinuxPackages(t *testing.T) {
	const module = "github.com/childproof/childproof/"
	root, _ := filepath.Abs("../..")
	for _, goos := range append([]string{"linux"}, otherPlatforms...) {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = goos, "amd64"
		// imports of a module package (relative path) on goos, cached.
		cache := map[string][]string{}
		imports := func(pkg string) []string {
			if im, ok := cache[pkg]; ok {
				return im
			}
			p, err := ctx.ImportDir(filepath.Join(root, pkg), 0)
			if err != nil {
				t.Fatalf("%s on %s: %v", pkg, goos, err)
			}
			var im []string
			for _, i := range p.Imports {
				if rel, ok := strings.CutPrefix(i, module); ok {
					im = append(im, rel)
				}
			}
			cache[pkg] = im
			return im
		}
		for _, ci := range commandTable {
			if ci.needsLinux {
				continue
			}
			f := constructors[ci.name]
			file := sourceFile(f)
			pf, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			var queue []string
			from := map[string]string{}
			for _, is := range pf.Imports {
				p, _ := strconv.Unquote(is.Path.Value)
				if rel, ok := strings.CutPrefix(p, module); ok && !slices.Contains(linuxOnlyPackages, rel) {
					queue = append(queue, rel)
					from[rel] = file
				}
			}
			for len(queue) > 0 {
				pkg := queue[0]
				queue = queue[1:]
				if fs := linuxOnlyFiles(t, filepath.Join(root, pkg)); goos == "linux" && len(fs) > 0 {
					t.Errorf("%s: %s (imported by %s) has files built on Linux only: %v", ci.name, pkg, from[pkg], fs)
				}
				for _, i := range imports(pkg) {
					if slices.Contains(linuxOnlyPackages, i) {
						t.Errorf("%s on %s: %s (imported by %s) imports %s, which reads /proc or launches", ci.name, goos, pkg, from[pkg], i)
					}
					if _, seen := from[i]; !seen {
						from[i] = pkg
						queue = append(queue, i)
					}
				}
			}
		}
	}
}

// TestPlatformsDoc: docs/cli.md's Platforms table lists each command in
// the row of its kind.
func TestPlatformsDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var portable, linux string
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "| `check`"):
			portable = line
		case strings.HasPrefix(line, "| `run`"):
			linux = line
		}
	}
	if portable == "" || linux == "" {
		t.Fatal("docs/cli.md has no Platforms table (rows starting | `check` and | `run`)")
	}
	for _, ci := range commandTable {
		row, other := portable, linux
		if ci.needsLinux {
			row, other = linux, portable
		}
		cell, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
		otherCell, _, _ := strings.Cut(strings.TrimPrefix(other, "|"), "|")
		if !strings.Contains(cell, "`"+ci.name+"`") || strings.Contains(otherCell, "`"+ci.name+"`") {
			t.Errorf("docs/cli.md, Platforms: %s (needsLinux %v) is not listed in its row only", ci.name, ci.needsLinux)
		}
	}
}
