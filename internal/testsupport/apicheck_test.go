package testsupport

import (
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const module = "github.com/childproof/childproof"

// TestNoInternalTypesInPublicAPI fails when an exported identifier of a
// package outside internal/ mentions a type from an internal package: a
// library user could be handed a value of a type they cannot name, and
// internal/ could not change without breaking them.
func TestNoInternalTypesInPublicAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks every package of the module")
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: "../.."}, module+"/...")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		if p.Types == nil || p.Name == "main" || strings.HasSuffix(p.Name, "_test") || isInternal(p.PkgPath) {
			continue
		}
		checked++
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			c := &checker{seen: map[types.Type]bool{}}
			if tn, ok := obj.(*types.TypeName); ok {
				c.typeDecl(tn)
			} else {
				c.walk(obj.Type(), name)
			}
			for _, b := range c.bad {
				t.Errorf("%s.%s", p.PkgPath, b)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("checked %d public packages; the pattern found too few", checked)
	}
}

func isInternal(path string) bool {
	return strings.Contains(path+"/", "/internal/")
}

// checker collects the places where a public declaration reaches an
// internal type.
type checker struct {
	seen map[types.Type]bool
	bad  []string
}

// typeDecl checks a declared type: its definition (exported fields and
// methods of an interface) and its exported methods.
func (c *checker) typeDecl(tn *types.TypeName) {
	if tn.IsAlias() {
		c.walk(tn.Type(), tn.Name())
		return
	}
	named, ok := tn.Type().(*types.Named)
	if !ok {
		return
	}
	c.seen[named] = true
	c.walk(named.Underlying(), tn.Name())
	for m := range named.Methods() {
		if m.Exported() {
			c.walk(m.Type(), tn.Name()+"."+m.Name())
		}
	}
}

// walk reports every internal named type that t mentions where a user
// sees it. Named types of public packages are checked at their own
// declaration, so the walk stops there.
func (c *checker) walk(t types.Type, where string) {
	if t == nil || c.seen[t] {
		return
	}
	c.seen[t] = true
	switch t := t.(type) {
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
			c.bad = append(c.bad, where+" mentions "+obj.Pkg().Path()+"."+obj.Name())
		}
		for a := range t.TypeArgs().Types() {
			c.walk(a, where)
		}
	case *types.Alias:
		c.walk(types.Unalias(t), where)
	case *types.Pointer:
		c.walk(t.Elem(), where)
	case *types.Slice:
		c.walk(t.Elem(), where)
	case *types.Array:
		c.walk(t.Elem(), where)
	case *types.Map:
		c.walk(t.Key(), where)
		c.walk(t.Elem(), where)
	case *types.Chan:
		c.walk(t.Elem(), where)
	case *types.Signature:
		for v := range t.Params().Variables() {
			c.walk(v.Type(), where)
		}
		for v := range t.Results().Variables() {
			c.walk(v.Type(), where)
		}
	case *types.Struct:
		for f := range t.Fields() {
			// An embedded field promotes its exported fields and methods
			// even when its own name is not exported.
			if f.Exported() || f.Embedded() {
				c.walk(f.Type(), where+"."+f.Name())
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			if m.Exported() {
				c.walk(m.Type(), where+"."+m.Name())
			}
		}
		for e := range t.EmbeddedTypes() {
			c.walk(e, where)
		}
	case *types.TypeParam:
		c.walk(t.Constraint(), where)
	}
}
