package launcher

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/childproof/childproof/redact"
	"github.com/childproof/childproof/schema"
	"github.com/google/go-cmp/cmp"
)

// The record keeps the selector and roles, and gives them back as a launch
// that re-selects the same way; a comm or exe holding a secret is not
// kept (the spec file is read again instead).
func TestRecordSelectorRoundTrip(t *testing.T) {
	l := &schema.Launch{Name: "api",
		Ports: []schema.Port{{Name: "http", Number: 18080}, {Name: "zmq", Number: 18081, Address: "0.0.0.0"}},
		Roles: []schema.Role{
			{Name: "api", Worker: schema.Worker{Comm: "python3"}, Ports: []string{"http"}},
			{Name: "engine", Worker: schema.Worker{Comm: "EngineCore_0", Count: 2}},
		},
	}
	rec := &Record{Name: "api", Selector: recordSelector(l, redact.Of(nil, nil))}
	for _, pt := range l.Ports {
		rec.Ports = append(rec.Ports, RecordPort{Number: pt.Number, Address: pt.PortAddress()})
	}
	got := rec.selectorLaunch()
	want := &schema.Launch{Name: "api",
		Ports: []schema.Port{{Name: "http", Number: 18080, Address: "127.0.0.1"}, {Name: "zmq", Number: 18081, Address: "0.0.0.0"}},
		Roles: l.Roles,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("selectorLaunch (-want +got):\n%s", d)
	}

	one := &schema.Launch{Name: "w", Worker: schema.Worker{Exe: "/opt/canary-exe-4411/bin/srv", Count: 3}}
	if s := recordSelector(one, redact.Of(nil, nil)); s == nil || s.Exe != one.Worker.Exe || s.Count != 3 {
		t.Errorf("recordSelector(worker) = %+v", s)
	}
	secret := redact.Of([]redact.Secret{{Name: "MODEL_DIR", Value: "/opt/canary-exe-4411"}}, nil)
	if s := recordSelector(one, secret); s != nil {
		t.Errorf("recordSelector kept an exe holding a secret: %+v", s)
	}
	if (&Record{Name: "old"}).selectorLaunch() != nil {
		t.Error("a record without a selector gave one")
	}
}

// A record written before the selector was kept is re-selected by the
// spec file it names, read as verify SPEC reads it.
func TestSpecSelectorOldRecord(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.hcl")
	body := "variable \"c\" {\n  default = \"x\"\n}\nlaunch \"sup\" {\n  command = [\"sleep\", \"1\"]\n  worker {\n    comm = var.c\n  }\n}\n"
	if err := os.WriteFile(spec, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &Record{Name: "sup", SpecPath: spec, Vars: []RecordVar{{Name: "c", Value: "srv"}}}
	st := &State{ReadSpec: schema.ReadLaunch}
	l := st.specSelector(rec)
	if l == nil || l.Worker.Comm != "srv" {
		t.Fatalf("specSelector = %+v, want comm srv", l)
	}
	if st.specSelector(&Record{Name: "sup"}) != nil {
		t.Error("a record without a spec path gave a selector")
	}
	if (&State{}).specSelector(rec) != nil {
		t.Error("a State without ReadSpec read a spec file")
	}
}
