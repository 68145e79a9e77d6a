package design

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestConcurrencySentences fails on an exported struct type, in any package
// of the module, whose doc comment does not say whether it is safe for
// concurrent use (the house style: it must contain "concurren").
// It reads the non-test Go files of every directory, for every GOOS, and
// skips testdata, hidden directories and the nested module export/k8svalidation.
func TestConcurrencySentences(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := moduleDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d package directories under %s, want the whole module", len(dirs), root)
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			types, err := exportedStructs(filepath.Join(root, dir))
			if err != nil {
				t.Fatal(err)
			}
			for _, ty := range types {
				if strings.Contains(strings.ToLower(ty.doc), "concurren") {
					continue
				}
				t.Errorf("%s/%s: %s.%s does not say whether it is safe for concurrent use: add a sentence to its doc comment",
					dir, ty.pos, filepath.Base(dir), ty.name)
			}
		})
	}
}

// moduleDirs returns the directories below root, relative and slash-separated,
// that hold a non-test Go file of this module.
func moduleDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		n := d.Name()
		if p != root {
			if n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module, such as export/k8svalidation
			}
		}
		files, err := filepath.Glob(filepath.Join(p, "*.go"))
		if err != nil {
			return err
		}
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				dirs = append(dirs, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	return dirs, err
}

type structType struct {
	name, doc, pos string
}

// exportedStructs parses the non-test Go files in dir, whatever their build
// constraints, and returns its exported struct types (not aliases) with
// their doc comments.
func exportedStructs(dir string) ([]structType, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []structType
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, sp := range g.Specs {
				ts := sp.(*ast.TypeSpec)
				if !ts.Name.IsExported() || ts.Assign.IsValid() {
					continue
				}
				if _, ok := ts.Type.(*ast.StructType); !ok {
					continue
				}
				doc := ts.Doc
				if doc == nil && len(g.Specs) == 1 {
					doc = g.Doc
				}
				pos := fset.Position(ts.Pos())
				pos.Filename = filepath.Base(pos.Filename)
				out = append(out, structType{ts.Name.Name, doc.Text(), pos.String()})
			}
		}
	}
	return out, nil
}
