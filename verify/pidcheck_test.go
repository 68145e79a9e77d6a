package verify

import (
	"testing"

	"github.com/childproof/childproof/schema"
	"github.com/google/go-cmp/cmp"
)

func TestCheckForPid(t *testing.T) {
	x := Expect{Values: map[string]string{"PORT": "8080"}, Require: []string{"API_KEY"}}
	for _, tc := range []struct {
		name  string
		ports []int
		comm  string
		want  Check
	}{
		{"pid alone", nil, "", Check{Name: "pid 42", Root: 42, WorkerSelector: WorkerSelector{Deepest: true}, Expect: x, AnyAddress: true, Forbid: schema.DefaultForbidWrappers}},
		{"ports once each, in order", []int{8080, 9090, 8080}, "", Check{Name: "pid 42", Root: 42, WorkerSelector: WorkerSelector{Deepest: true}, Expect: x,
			Ports: []schema.Port{{Number: 8080}, {Number: 9090}}, AnyAddress: true, Forbid: schema.DefaultForbidWrappers}},
		{"comm", nil, "gunicorn", Check{Name: "pid 42", Root: 42, WorkerSelector: WorkerSelector{Comm: "gunicorn", Deepest: true}, Expect: x, AnyAddress: true, Forbid: schema.DefaultForbidWrappers}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CheckForPid(42, x, tc.ports, tc.comm)); diff != "" {
				t.Errorf("CheckForPid (-want +got):\n%s", diff)
			}
		})
	}
}
