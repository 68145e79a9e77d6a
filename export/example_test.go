package export_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/childproof/childproof/export"
	"github.com/childproof/childproof/schema"
)

// This writes a systemd unit for a launch built in Go. systemd starts the
// server, and the unit's ExecStartPost runs childproof verify on it.
func ExampleRender() {
	l := &schema.Launch{
		Name:    "api",
		Command: []string{"/srv/api/bin/api", "--port", "8080"},
		Dir:     "/srv/api",
		Env:     map[string]string{"MODE": "prod"},
		Ports:   []schema.Port{{Name: "http", Number: 8080}},
	}
	unit, err := export.Render(context.Background(), l, export.Options{Engine: export.Systemd})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(unit), "\n") {
		if strings.HasPrefix(line, "Exec") || strings.HasPrefix(line, "Environment=") {
			fmt.Println(line)
		}
	}
	// Output:
	// ExecStart=/srv/api/bin/api --port 8080
	// Environment="MODE=prod"
	// ExecStartPost=childproof verify --state-dir %S/childproof --pid $MAINPID --env MODE=prod --port 8080 --wait 10s
}
