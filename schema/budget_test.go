package schema

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// listVar declares variable "l" with n short strings as its default.
func listVar(n int) string {
	var b strings.Builder
	b.WriteString("variable \"l\" {\n  default = [")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", fmt.Sprintf("item%d", i))
	}
	b.WriteString("]\n}\n")
	return b.String()
}

// budgetSpecs are the shapes (issue 40 item 2) and their
// relatives: each must be refused, quickly, with a diagnostic at the
// expression.
func budgetSpecs() map[string]string {
	three := `%{ for a in var.l }%{ for b in var.l }%{ for c in var.l }${a}${b}${c}%{ endfor }%{ endfor }%{ endfor }`
	return map[string]string{
		"template for x3 over 200":  listVar(200) + "launch \"x\" {\n  command = [\"/bin/true\", \"" + three + "\"]\n}\n",
		"template for x3 over 1000": listVar(1000) + "launch \"x\" {\n  command = [\"/bin/true\", \"" + three + "\"]\n}\n",
		"for expressions in env":    listVar(200) + "launch \"x\" {\n  command = [\"/bin/true\"]\n  env = { for a in var.l : a => { for b in var.l : b => [for c in var.l : \"${a}${b}${c}\"] } }\n}\n",
		"object for in env":         listVar(200) + "launch \"x\" {\n  command = [\"/bin/true\"]\n  env = { for a in var.l : a => \"%{ for b in var.l }%{ for c in var.l }${b}${c}%{ endfor }%{ endfor }\" }\n}\n",
		"nested for in a default":   "variable \"l\" {\n  default = [for a in [" + strings.Repeat("1,", 200) + "1] : [for b in [" + strings.Repeat("1,", 200) + "1] : [for c in [" + strings.Repeat("1,", 200) + "1] : 1]]]\n}\nlaunch \"x\" {\n  command = [\"/bin/true\"]\n}\n",
		"splat of nested for":       listVar(400) + "launch \"x\" {\n  command = [\"/bin/true\"]\n  inherit = [for a in var.l : [for b in var.l : b]][*][0]\n}\n",
		"depends_on nested for":     "launch \"x\" {\n  command = [\"/bin/true\"]\n  depends_on = [for a in [" + strings.Repeat("\"a\",", 300) + "\"a\"] : [for b in [" + strings.Repeat("\"a\",", 300) + "\"a\"] : b]]\n}\n",
		"file in a for":             listVar(300) + "launch \"x\" {\n  command = [\"/bin/true\"]\n  env = { A = \"%{ for a in var.l }${file(\"big\")}%{ endfor }\" }\n}\n",
	}
}

func TestEvalBudgetRefuses(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 200_000)
	if err := os.WriteFile(dir+"/big", []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, src := range budgetSpecs() {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, _, diags := Parse([]byte(src), dir+"/childproof.hcl", LoadOptions{LookupEnv: lookupFrom(nil), MissingProgramOK: true})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			var found *hcl.Diagnostic
			for _, d := range diags {
				if d.Summary == "Expression too large to evaluate" {
					found = d
				}
			}
			if found == nil {
				t.Fatalf("no budget diagnostic; got %v", diags)
			}
			if found.Subject == nil || found.Subject.Start.Line < 2 {
				t.Errorf("diagnostic has no expression range: %v", found.Subject)
			}
			if took > 2*time.Second {
				t.Errorf("refusing took %v", took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("refusing allocated %d bytes", alloc)
			}
		})
	}
}

// TestEvalBudgetAllows: specs a person writes stay well under the budget.
func TestEvalBudgetAllows(t *testing.T) {
	for name, src := range map[string]string{
		"one for over 1000":      listVar(1000) + "launch \"x\" {\n  command = [for a in var.l : \"--x=${a}\"]\n}\n",
		"template for over 1000": listVar(1000) + "launch \"x\" {\n  command = [\"/bin/true\", \"%{ for i, a in var.l }${i}=${a},%{ endfor }\"]\n}\n",
		"two nested over 100":    listVar(100) + "launch \"x\" {\n  command = [\"/bin/true\", \"%{ for a in var.l }%{ for b in var.l }${a}${b}%{ endfor }%{ endfor }\"]\n}\n",
		"env map from a for":     listVar(500) + "launch \"x\" {\n  command = [\"/bin/true\"]\n  env = { for i, a in var.l : \"V${i}\" => a }\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, _, diags := Parse([]byte(src), "childproof.hcl", LoadOptions{LookupEnv: lookupFrom(nil), MissingProgramOK: true})
			for _, d := range diags {
				if d.Summary == "Expression too large to evaluate" {
					t.Fatalf("refused: %v", d)
				}
			}
		})
	}
}

// TestEvalInterrupted: a done context stops the evaluation with an error.
func TestEvalInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := "launch \"x\" {\n  command = [\"/bin/true\"]\n}\n"
	_, _, diags := Parse([]byte(src), "childproof.hcl", LoadOptions{LookupEnv: lookupFrom(nil), MissingProgramOK: true, Context: ctx})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Interrupted") {
		t.Fatalf("diags = %v, want Interrupted", diags)
	}
}

// specGen builds a spec from fuzz bytes: expressions of nested `for`
// expressions, `%{ for }` directives, splats, conditionals and tuples
// over variables of up to 1,000 elements.
type specGen struct {
	data []byte
	i    int
}

func (g *specGen) next() int {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return int(g.data[g.i-1])
}

// coll writes a collection expression at nesting depth d.
func (g *specGen) coll(d int, vars []string) string {
	switch g.next() % 5 {
	case 0:
		return "var.l"
	case 1:
		return "var.m"
	case 2:
		if len(vars) > 0 {
			return vars[g.next()%len(vars)]
		}
		return "var.l"
	case 3:
		return "[" + strings.Repeat("\"a\", ", g.next()%40) + "\"b\"]"
	default:
		return "[for v in " + g.coll(d+1, vars) + " : " + g.str(d+1, vars) + "]"
	}
}

// str writes a string expression at nesting depth d.
func (g *specGen) str(d int, vars []string) string {
	if d > 6 {
		return "\"x\""
	}
	v := fmt.Sprintf("v%d", d)
	switch g.next() % 6 {
	case 0:
		return "\"%{ for " + v + " in " + g.coll(d+1, vars) + " }${" + g.inner(d+1, append(vars, v)) + "}%{ endfor }\""
	case 1:
		return "\"%{ for k, " + v + " in " + g.coll(d+1, vars) + " }${k}%{ for w in " + g.coll(d+1, append(vars, v)) + " }${w}%{ endfor }%{ endfor }\""
	case 2:
		return "(var.n > 1 ? " + g.str(d+1, vars) + " : " + g.str(d+1, vars) + ")"
	case 3:
		if len(vars) > 0 {
			return "\"${" + vars[g.next()%len(vars)] + "}${" + vars[g.next()%len(vars)] + "}\""
		}
		return "\"${var.l[0]}\""
	case 4:
		return "\"${var.l[*]}\""
	default:
		return "\"${env(\"X\")}\""
	}
}

// inner writes an expression used inside an interpolation.
func (g *specGen) inner(d int, vars []string) string {
	s := g.str(d, vars)
	if strings.HasPrefix(s, "\"") {
		return s
	}
	return s
}

func (g *specGen) spec() string {
	var b strings.Builder
	b.WriteString(listVar(g.next()*4 + 1))
	b.WriteString("variable \"m\" {\n  default = [[\"a\", \"b\"], [\"c\"]]\n}\nvariable \"n\" {\n  default = 2\n}\n")
	b.WriteString("launch \"x\" {\n  command = [\"/bin/true\", " + g.str(0, nil) + "]\n")
	switch g.next() % 3 {
	case 0:
		b.WriteString("  env = { A = " + g.str(0, nil) + " }\n")
	case 1:
		b.WriteString("  env = { for e in " + g.coll(0, nil) + " : e => " + g.str(1, []string{"e"}) + " }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// FuzzEvalBudget loads generated specs (see specGen) and asserts that each
// load ends within bounded time and memory: evaluated, or refused by the
// work budget, never run out.
func FuzzEvalBudget(f *testing.F) {
	f.Add([]byte{250, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{250, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{50, 0, 0, 0, 4, 0, 0, 1, 0, 0})
	f.Add([]byte{255, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Add([]byte{255, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0})
	lookup := lookupFrom(map[string]string{"X": strings.Repeat("s", 10_000)})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &specGen{data: data}
		src := g.spec()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, _, _ = Parse([]byte(src), "childproof.hcl", LoadOptions{LookupEnv: lookup, MissingProgramOK: true})
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if took > 10*time.Second {
			t.Errorf("loading took %v:\n%s", took, src)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
			t.Errorf("loading allocated %d MB:\n%s", alloc>>20, src)
		}
	})
}
