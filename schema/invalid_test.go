package schema

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestValidate checks a Launch built in Go by the spec language's rules.
func TestValidate(t *testing.T) {
	ok := func() *Launch {
		return &Launch{Name: "srv", Command: []string{"./srv"}, Env: map[string]string{"K": "v"}, Require: []string{"K"},
			Ports: []Port{{Number: 8080}}, Ready: Ready{HTTP: "/healthz", Timeout: 5 * time.Second}}
	}
	tests := []struct {
		name   string
		change func(*Launch)
		want   []string // the fields of the problems, in order
	}{
		{"valid", func(*Launch) {}, nil},
		{"zero values are defaults", func(l *Launch) { l.Ready, l.Ports, l.Attempts = Ready{}, nil, 0 }, nil},
		{"bad env name", func(l *Launch) { l.Env["1X"] = "v" }, []string{"env[1X]"}},
		{"port out of range and all interfaces", func(l *Launch) { l.Ports = []Port{{Number: 70000}, {Number: 1, Address: "0.0.0.0"}} },
			[]string{"port[0].number", "port[1].address"}},
		{"negative timeout", func(l *Launch) { l.Ready.Timeout = -time.Second }, []string{"ready.timeout"}},
		{"comm too long, unknown wrapper rule", func(l *Launch) {
			l.Worker.Comm = "a-very-long-command-name"
			l.ForbidWrappers = []string{"nohup"}
		}, []string{"forbid_wrappers[0]", "worker.comm"}},
		{"both command and dispatch", func(l *Launch) { l.Dispatch = []string{"d.sh"} }, []string{"command"}},
		{"worker roles", func(l *Launch) {
			l.Ports[0].Name = "http"
			l.Roles = []Role{{Name: "api", Worker: Worker{Comm: "python3"}, Ports: []string{"http"}}, {Name: "engine", Ports: []string{"http", "metrics"}}}
		}, []string{"worker[1]", "worker[1].ports", "worker[1].ports"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := ok()
			tt.change(l)
			err := l.Validate()
			var got []string
			var ie *InvalidError
			if errors.As(err, &ie) {
				for _, p := range ie.Problems {
					got = append(got, p.Field)
				}
			} else if err != nil {
				t.Fatalf("err = %T %v, want *InvalidError", err, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// TestGoField names spec field paths by Launch's Go fields.
func TestGoField(t *testing.T) {
	for spec, want := range map[string]string{
		"port[0].number":               "Ports[0].Number",
		"port[1].allow_all_interfaces": "Ports[1].AllowAllInterfaces",
		"ready.timeout":                "Ready.Timeout",
		"ready.http":                   "Ready.HTTP",
		"env[API_KEY]":                 "Env[API_KEY]",
		"worker.comm":                  "Worker.Comm",
		"forbid_wrappers[0]":           "ForbidWrappers[0]",
		"on_stale":                     "OnStale",
		"depends_on[1]":                "DependsOn[1]",
		"worker[1]":                    "Roles[1]",
		"worker[1].name":               "Roles[1].Name",
		"worker[1].comm":               "Roles[1].Worker.Comm",
		"worker[1].ports":              "Roles[1].Ports",
		"slurm.ntasks_per_node":        "Slurm.TasksPerNode",
		"log.keep":                     "LogKeep",
	} {
		if got := GoField(spec); got != want {
			t.Errorf("GoField(%q) = %q, want %q", spec, got, want)
		}
	}
}
