package statedir

import (
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
	rec := &Record{Name: "api", Selector: SelectorOf(l, redact.Of(nil, nil))}
	for _, pt := range l.Ports {
		rec.Ports = append(rec.Ports, RecordPort{Number: pt.Number, Address: pt.PortAddress()})
	}
	got := rec.SelectorLaunch()
	want := &schema.Launch{Name: "api",
		Ports: []schema.Port{{Name: "http", Number: 18080, Address: "127.0.0.1"}, {Name: "zmq", Number: 18081, Address: "0.0.0.0"}},
		Roles: l.Roles,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("selectorLaunch (-want +got):\n%s", d)
	}

	one := &schema.Launch{Name: "w", Worker: schema.Worker{Exe: "/opt/canary-exe-4411/bin/srv", Count: 3}}
	if s := SelectorOf(one, redact.Of(nil, nil)); s == nil || s.Exe != one.Worker.Exe || s.Count != 3 {
		t.Errorf("SelectorOf(worker) = %+v", s)
	}
	secret := redact.Of([]redact.Secret{{Name: "MODEL_DIR", Value: "/opt/canary-exe-4411"}}, nil)
	if s := SelectorOf(one, secret); s != nil {
		t.Errorf("recordSelector kept an exe holding a secret: %+v", s)
	}
	if (&Record{Name: "old"}).SelectorLaunch() != nil {
		t.Error("a record without a selector gave one")
	}
}
