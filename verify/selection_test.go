package verify

import (
	"testing"

	"github.com/childproof/childproof/schema"
)

func TestSelectionOf(t *testing.T) {
	port := []schema.Port{{Name: "http", Number: 8080}}
	tests := []struct {
		name   string
		worker schema.Worker
		ports  []schema.Port
		want   Selection
	}{
		{"nothing", schema.Worker{}, nil, SelectLaunched},
		{"port", schema.Worker{}, port, SelectPort},
		{"exe", schema.Worker{Exe: "/usr/bin/python3"}, nil, SelectExe},
		{"exe over port", schema.Worker{Exe: "/usr/bin/python3"}, port, SelectExe},
		{"comm", schema.Worker{Comm: "api"}, nil, SelectComm},
		{"comm over port", schema.Worker{Comm: "api"}, port, SelectComm},
		{"comm over exe", schema.Worker{Comm: "api", Exe: "/usr/bin/python3"}, port, SelectComm},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := &schema.Launch{Worker: tc.worker, Ports: tc.ports}
			if got := SelectionOf(l); got != tc.want {
				t.Errorf("SelectionOf = %d, want %d", got, tc.want)
			}
		})
	}
}
