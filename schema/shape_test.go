package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/specrule"
	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/spec"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// The spec language's shape is written once, in the decoder's schemas
// (blockSchemas, with roleSchema for a labelled worker block). The tests
// of this file hold everything else that knows the shape to them: the
// raw structs' hcl and validate tags (the validator), the decoding steps,
// spec.GoField (InvalidError's Go names), specrule.Explain (the words of
// each tag) and docs/spec.md's attribute tables.

// shapeBlock is one block of the spec language: its path (launch.port;
// `launch.worker "NAME"` for a role), the decoder's schema, and the raw
// struct the validator checks (nil: its attributes are checked where they
// are decoded).
type shapeBlock struct {
	path   string
	schema *hcl.BodySchema
	raw    reflect.Type
}

// rawTypes are the raw structs of the blocks that have one.
var rawTypes = map[string]reflect.Type{
	"launch":         reflect.TypeFor[rawLaunch](),
	"launch.worker":  reflect.TypeFor[rawWorker](),
	rolePath:         reflect.TypeFor[rawRole](),
	"launch.port":    reflect.TypeFor[rawPort](),
	"launch.ready":   reflect.TypeFor[rawReady](),
	"launch.restart": reflect.TypeFor[rawRestart](),
	"launch.slurm":   reflect.TypeFor[rawSlurm](),
	"launch.stop":    reflect.TypeFor[rawStop](),
}

// shapeBlocks are blockSchemas and the role, sorted by path.
func shapeBlocks() []shapeBlock {
	var out []shapeBlock
	for p, s := range blockSchemas {
		out = append(out, shapeBlock{p, s, rawTypes[p]})
	}
	out = append(out, shapeBlock{rolePath, roleSchema, rawTypes[rolePath]})
	slices.SortFunc(out, func(a, b shapeBlock) int { return strings.Compare(a.path, b.path) })
	return out
}

// schemaNames are the attribute and block names of s.
func schemaNames(s *hcl.BodySchema) []string {
	var out []string
	for _, a := range s.Attributes {
		out = append(out, a.Name)
	}
	for _, b := range s.Blocks {
		out = append(out, b.Type)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// notRaw are the names of a block a raw struct does not hold, and why.
var notRaw = map[string]map[string]string{
	"launch": {"log": "log.keep is decoded and checked in logblock.go"},
}

// TestShapeRawTags: the raw structs the validator checks have an hcl tag
// for each attribute and block of their schema, and none besides (the
// label, "name", and the programs "command[0]", "dispatch[0]" apart).
func TestShapeRawTags(t *testing.T) {
	for p := range rawTypes {
		if _, ok := blockSchemas[p]; !ok && p != rolePath {
			t.Errorf("rawTypes has %s, which blockSchemas does not", p)
		}
	}
	for _, b := range shapeBlocks() {
		if b.raw == nil {
			continue
		}
		var tags []string
		for f := range b.raw.Fields() {
			tag := f.Tag.Get("hcl")
			if tag == "" || tag == "name" || strings.Contains(tag, "[") {
				continue
			}
			tags = append(tags, tag)
		}
		for n := range notRaw[b.path] {
			tags = append(tags, n)
		}
		slices.Sort(tags)
		tags = slices.Compact(tags)
		if diff := cmp.Diff(schemaNames(b.schema), tags); diff != "" {
			t.Errorf("%s: the schema's names (-) and %s's hcl tags (+) differ:\n%s", b.path, b.raw.Name(), diff)
		}
	}
}

// shapePlaces are the attributes of the launch's blocks as Places names
// them (a role's as launch.worker "NAME".ports).
func shapePlaces() []string {
	var out []string
	for _, p := range Places() {
		if strings.HasPrefix(p, "launch.") {
			out = append(out, p)
		}
	}
	return out
}

// specPathOf is the part of a Launch a place names, as a problem's field
// does: the first port is port[0], a role worker[0].
func specPathOf(place string) string {
	p := strings.TrimPrefix(place, "launch.")
	if r, ok := strings.CutPrefix(p, `worker "NAME".`); ok {
		return "worker[0]." + r
	}
	if r, ok := strings.CutPrefix(p, "port."); ok {
		return "port[0]." + r
	}
	return p
}

// TestShapeDecoded: every attribute of the launch's schemas is decoded.
// A value no attribute takes ({ k = [] }: not a string, number, bool,
// list or map of strings) at each must be an error on its line; an
// attribute the schema accepts but no step decodes would pass silently.
func TestShapeDecoded(t *testing.T) {
	const bad = "{ shape_probe = [] }"
	dir := t.TempDir()
	path := filepath.Join(dir, "s.hcl")
	for _, place := range shapePlaces() {
		src := testsupport.SpecAt(place, bad)
		line := 1 + strings.Count(src[:strings.Index(src, bad)], "\n")
		_, _, diags := Parse([]byte(src), path, LoadOptions{LookupEnv: lookupFrom(nil), Environ: func() []string { return nil }})
		found := false
		for _, d := range diags {
			if d.Severity == hcl.DiagError && d.Subject != nil && d.Subject.Start.Line == line {
				found = true
			}
		}
		if !found {
			t.Errorf("%s = %s: no error on line %d; is it decoded? diagnostics: %v\n%s", place, bad, line, diags, src)
		}
	}
}

// goFieldType follows a Go field path (Ports[0].Number, Env[K],
// Roles[0].Worker.Comm) through t's fields; false when a step names no
// field.
func goFieldType(t reflect.Type, path string) (reflect.Type, bool) {
	for _, seg := range strings.Split(path, ".") {
		name, index, indexed := strings.Cut(seg, "[")
		f, ok := t.FieldByName(name)
		if !ok {
			return nil, false
		}
		t = f.Type
		if indexed {
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Map || !strings.HasSuffix(index, "]") {
				return nil, false
			}
			t = t.Elem()
		}
	}
	return t, true
}

// TestShapeGoNames: spec.GoField names each part of a launch (and the
// elements of its lists and maps) by a field of spec.Launch, so that an
// InvalidError of a Launch built in Go names fields that exist.
func TestShapeGoNames(t *testing.T) {
	launch := reflect.TypeFor[spec.Launch]()
	paths := []string{"name", "command[0]", "dispatch[0]", "env[K]", "port[0]", "port[0].name", "worker[0]", "worker[0].name"}
	for _, place := range shapePlaces() {
		p := specPathOf(place)
		paths = append(paths, p)
		if typ, ok := goFieldType(launch, spec.GoField(p)); ok && typ.Kind() == reflect.Slice {
			paths = append(paths, p+"[0]")
		}
	}
	for _, p := range paths {
		if _, ok := goFieldType(launch, spec.GoField(p)); !ok {
			t.Errorf("GoField(%q) = %q: spec.Launch has no such field", p, spec.GoField(p))
		}
	}
}

// TestShapeExplained: specrule.Explain has words for every validate tag
// of the raw structs: none falls through to "fails the constraint", a
// number's min or max says both bounds, a oneof each choice, maxbytes its
// bound.
func TestShapeExplained(t *testing.T) {
	skip := map[string]bool{"omitempty": true, "omitnil": true, "dive": true, "keys": true, "endkeys": true}
	for _, b := range shapeBlocks() {
		if b.raw == nil {
			continue
		}
		for f := range b.raw.Fields() {
			name := f.Tag.Get("hcl")
			tags := strings.Split(f.Tag.Get("validate"), ",")
			params := map[string]string{}
			for _, c := range tags {
				tag, param, _ := strings.Cut(c, "=")
				params[tag] = param
			}
			for _, c := range tags {
				tag, param, _ := strings.Cut(c, "=")
				if tag == "" || skip[tag] {
					continue
				}
				ns := strings.TrimPrefix(specPathOf(b.path+"."+name), "launch")
				ns = strings.TrimPrefix(ns, ".")
				sum, detail := specrule.Explain(specrule.Fail{NS: ns, Field: name, Tag: tag, Val: "v"})
				what := fmt.Sprintf("%s.%s %s: %q, %q", b.path, name, c, sum, detail)
				if strings.Contains(detail, "fails the") {
					t.Errorf("%s: Explain has no words for the tag", what)
				}
				number := f.Type.Kind() == reflect.Int || f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Int
				var want []string
				switch {
				case (tag == "min" || tag == "max") && number:
					want = []string{params["min"], params["max"]}
				case tag == "oneof":
					want = strings.Fields(param)
				case tag == "maxbytes":
					want = []string{param}
				}
				for _, w := range want {
					if !strings.Contains(detail, w) {
						t.Errorf("%s: the detail does not say %q", what, w)
					}
				}
			}
		}
	}
}

// docTable is an attribute table of docs/spec.md: each attribute's type
// and default column.
type docTable map[string][2]string

var docHeading = regexp.MustCompile("^#{3,4} `([a-z_]+)( \"NAME\")?`")

// specDocTables reads docs/spec.md's attribute tables by the block path
// of their heading (### `launch`, #### `port "NAME"` blocks), with the
// note of each launch block's heading.
func specDocTables(t *testing.T) (tables map[string]docTable, notes map[string]string) {
	b, err := os.ReadFile("../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	tables, notes = map[string]docTable{}, map[string]string{}
	block, inTable := "", false
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\n")
		if m := docHeading.FindStringSubmatch(line); m != nil {
			block, inTable = m[1], false
			if strings.HasPrefix(line, "####") {
				block = "launch." + block
				if m[2] != "" && block == "launch.worker" {
					block = rolePath
				}
				notes[block] = line
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			block, inTable = "", false
			continue
		}
		if block == "" {
			continue
		}
		if strings.HasPrefix(line, "| attribute |") && tables[block] == nil {
			tables[block], inTable = docTable{}, true
			continue
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			t.Errorf("docs/spec.md, %s: a row of fewer than 4 cells: %s", block, line)
			continue
		}
		for n := range strings.SplitSeq(cells[1], ",") {
			tables[block][strings.Trim(strings.TrimSpace(n), "`")] = [2]string{strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])}
		}
	}
	return tables, notes
}

// docType is the type column of docs/spec.md for a raw field of type t.
func docType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return docType(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Int:
		return "number"
	case reflect.Bool:
		return "bool"
	case reflect.Map:
		return "map of " + docType(t.Elem())
	case reflect.Slice:
		return "list of " + docType(t.Elem()) + "s"
	}
	return t.String()
}

// TestShapeDocs: docs/spec.md has a heading and an attribute table for
// every block, listing the schema's attributes and no others; its
// default column says "required" where the schema requires the
// attribute; a launch block's heading says "at most one" where a launch
// may have one alone (singleBlocks); the type column says what the raw
// struct's field holds ("list of …" for a list of names, ports or rule
// names); the top-level table lists the file's blocks.
func TestShapeDocs(t *testing.T) {
	tables, notes := specDocTables(t)
	for _, b := range shapeBlocks() {
		table, ok := tables[b.path]
		if !ok {
			t.Errorf("docs/spec.md has no attribute table under a heading for %s", b.path)
			continue
		}
		var names []string
		for _, a := range b.schema.Attributes {
			names = append(names, a.Name)
			if got, want := table[a.Name][1] == "required", a.Required; got != want {
				t.Errorf("docs/spec.md, %s.%s: default %q; the schema's Required is %v", b.path, a.Name, table[a.Name][1], want)
			}
		}
		slices.Sort(names)
		var docNames []string
		for n := range table {
			docNames = append(docNames, n)
		}
		slices.Sort(docNames)
		if diff := cmp.Diff(names, docNames); diff != "" {
			t.Errorf("docs/spec.md, %s: the schema's attributes (-) and the table's (+) differ:\n%s", b.path, diff)
		}
		if b.raw != nil {
			for f := range b.raw.Fields() {
				row, ok := table[f.Tag.Get("hcl")]
				if !ok {
					continue
				}
				want := docType(f.Type)
				if got := row[0]; got != want && !(strings.HasPrefix(want, "list of") && strings.HasPrefix(got, "list of")) {
					t.Errorf("docs/spec.md, %s.%s: type %q, the raw field is %s (%q)", b.path, f.Tag.Get("hcl"), got, f.Type, want)
				}
			}
		}
		if typ, ok := strings.CutPrefix(b.path, "launch."); ok && b.path != rolePath {
			if got, want := strings.Contains(notes[b.path], "(at most one"), singleBlocks[typ]; got != want {
				t.Errorf("docs/spec.md: heading %q; a launch has at most one %s block: %v", notes[b.path], typ, want)
			}
		}
	}
	for p := range notes {
		if _, ok := blockSchemas[p]; !ok && p != rolePath {
			t.Errorf("docs/spec.md has a heading for %s, a block the schemas do not have", p)
		}
	}
	b, _ := os.ReadFile("../docs/spec.md")
	_, top, _ := strings.Cut(string(b), "## Top-level blocks")
	top, _, _ = strings.Cut(top, "\n#")
	var docTop, schemaTop []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+) ").FindAllStringSubmatch(top, -1) {
		docTop = append(docTop, m[1])
	}
	for _, bl := range rootSchema.Blocks {
		schemaTop = append(schemaTop, bl.Type)
	}
	slices.Sort(docTop)
	slices.Sort(schemaTop)
	if diff := cmp.Diff(schemaTop, docTop); diff != "" {
		t.Errorf("docs/spec.md, Top-level blocks: the schema's (-) and the table's (+) differ:\n%s", diff)
	}
}

// TestShapeTables: the loader's other tables of names name what the
// schemas have: nameAttrs launch attributes, singleBlocks launch blocks,
// readyKinds ready attributes.
func TestShapeTables(t *testing.T) {
	has := func(s *hcl.BodySchema, name string) bool { return slices.Contains(schemaNames(s), name) }
	for n := range nameAttrs {
		if !slices.ContainsFunc(launchSchema.Attributes, func(a hcl.AttributeSchema) bool { return a.Name == n }) {
			t.Errorf("nameAttrs has %s, which is no launch attribute", n)
		}
	}
	for n := range singleBlocks {
		if !slices.ContainsFunc(launchSchema.Blocks, func(b hcl.BlockHeaderSchema) bool { return b.Type == n }) {
			t.Errorf("singleBlocks has %s, which is no launch block", n)
		}
	}
	for _, n := range readyKinds {
		if !has(readySchema, n) {
			t.Errorf("readyKinds has %s, which is no ready attribute", n)
		}
	}
}
