package recorded

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/schema"
)

// A record written before the selector was kept is re-selected by the
// spec file it names, read as verify SPEC reads it.
func TestSpecSelectorOldRecord(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.hcl")
	body := "variable \"c\" {\n  default = \"x\"\n}\nlaunch \"sup\" {\n  command = [\"sleep\", \"1\"]\n  worker {\n    comm = var.c\n  }\n}\n"
	if err := os.WriteFile(spec, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &statedir.Record{Name: "sup", SpecPath: spec, Vars: []statedir.RecordVar{{Name: "c", Value: "srv"}}}
	st := &State{ReadSpec: schema.ReadLaunch}
	l := st.specSelector(rec)
	if l == nil || l.Worker.Comm != "srv" {
		t.Fatalf("specSelector = %+v, want comm srv", l)
	}
	if st.specSelector(&statedir.Record{Name: "sup"}) != nil {
		t.Error("a record without a spec path gave a selector")
	}
	if (&State{}).specSelector(rec) != nil {
		t.Error("a State without ReadSpec read a spec file")
	}
}
