package outcome

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTable: every kind has the contract's code (§2), a name, and
// ExitCode gives it for an error of that kind, however wrapped.
func TestTable(t *testing.T) {
	want := map[Kind]int{
		OK: 0, Findings: 1, Refused: 1,
		Usage: 2, InvalidSpec: 2, BadScript: 2, UntrustedStateDir: 2,
		Unproven: 3, UntrustedRecord: 3, Delta: 3,
		Foreign: 4,
		Exited:  5, NotRecorded: 5, Gone: 5,
		Locked:      6,
		Interrupted: 130,
	}
	if len(Kinds()) != len(want) {
		t.Errorf("%d kinds, want %d", len(Kinds()), len(want))
	}
	names := map[string]Kind{}
	for _, k := range Kinds() {
		code, ok := want[k]
		if !ok {
			t.Errorf("kind %d (%s) is not in the contract's table", k, k)
		}
		if k.Code() != code {
			t.Errorf("%s: code %d, want %d", k, k.Code(), code)
		}
		if k.String() == "" || strings.HasPrefix(k.String(), "outcome.") {
			t.Errorf("kind %d has no name", k)
		}
		if o, dup := names[k.String()]; dup {
			t.Errorf("%s and %d share the name %q", o, k, k.String())
		}
		names[k.String()] = k
		err := fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", kinded{k}))
		if got := Of(err); got != k {
			t.Errorf("Of(wrapped %s) = %s", k, got)
		}
		if got := ExitCode(err); got != code {
			t.Errorf("ExitCode(wrapped %s) = %d, want %d", k, got, code)
		}
	}
	if ExitCode(nil) != 0 || Of(nil) != OK {
		t.Errorf("nil: exit %d, kind %s", ExitCode(nil), Of(nil))
	}
	if ExitCode(errors.New("unknown flag")) != 2 {
		t.Errorf("an unclassified error: exit %d, want 2", ExitCode(errors.New("x")))
	}
	if ExitCode(fmt.Errorf("run: %w", Status(137))) != 137 {
		t.Errorf("a worker's status is not the exit code")
	}
	if k := Kind(200); k.Code() != 2 || k.String() != "outcome.Kind(200)" {
		t.Errorf("a kind outside the table: %d %q", k.Code(), k)
	}
}

type kinded struct{ k Kind }

func (e kinded) Error() string     { return e.k.String() }
func (e kinded) OutcomeKind() Kind { return e.k }

// TestDocumented: docs/cli.md's kind table is this package's, row for
// row, in order, and its code table lists exactly the codes the kinds
// have.
func TestDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	codes := doc[strings.Index(doc, "## Exit codes"):]
	codes = codes[strings.Index(codes, "| code | meaning |"):]
	codes = codes[:strings.Index(codes, "\n\n")]
	listed := map[int]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| ([0-9]+) \|`).FindAllStringSubmatch(codes, -1) {
		n, _ := strconv.Atoi(m[1])
		listed[n] = true
	}
	have := map[int]bool{}
	for _, k := range Kinds() {
		have[k.Code()] = true
	}
	if !maps.Equal(listed, have) {
		t.Errorf("docs/cli.md's code table lists %v, the kinds have %v", slices.Sorted(maps.Keys(listed)), slices.Sorted(maps.Keys(have)))
	}
	i := strings.Index(doc, "| kind | code |")
	if i < 0 {
		t.Fatal(`docs/cli.md has no "| kind | code |" table`)
	}
	doc = doc[i:]
	if j := strings.Index(doc, "\n\n"); j >= 0 {
		doc = doc[:j]
	}
	row := regexp.MustCompile(`(?m)^\| ([a-z ]+) \| ([0-9]+) \|$`)
	rows := row.FindAllStringSubmatch(doc, -1)
	kinds := Kinds()
	if len(rows) != len(kinds) {
		t.Errorf("docs/cli.md lists %d kinds, the table has %d", len(rows), len(kinds))
	}
	for i, m := range rows {
		if i >= len(kinds) {
			break
		}
		n, _ := strconv.Atoi(m[2])
		if k := kinds[i]; m[1] != k.String() || n != k.Code() {
			t.Errorf("row %d: docs/cli.md says %q %d, the table %q %d", i+1, m[1], n, k, k.Code())
		}
	}
}
