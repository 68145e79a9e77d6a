package launcher_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/schema"
)

// This starts a server from a launch built in Go, proves on the server's
// own records that it got the required variable and owns its port, and
// stops it.
func ExampleStart() {
	port, err := launchertest.Port()
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "childproof-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	spec := &schema.Launch{
		Name:    "web",
		Command: []string{"python3", "-m", "http.server", "--bind", "127.0.0.1", strconv.Itoa(port)},
		Env:     map[string]string{"GREETING": "hello"},
		Require: []string{"GREETING"},
		Ports:   []schema.Port{{Name: "http", Number: port}},
		// python3 may be a shim (pyenv's) that a busy machine starts slowly.
		Ready: schema.Ready{Timeout: time.Minute},
	}
	la, err := launcher.Start(context.Background(), spec, launcher.Options{StateDir: dir})
	if err != nil {
		var e *launcher.Error
		if errors.As(err, &e) {
			fmt.Println("not started:", e.Outcome)
		}
		return
	}
	defer la.Stop(context.Background())

	fmt.Println("verified:", la.Report.Verified)
	for _, c := range la.Report.Env {
		fmt.Println(c.Name, "present:", c.Present, "matches:", *c.Matches)
	}
	for _, pc := range la.Report.Ports {
		fmt.Println("port owned by the worker:", pc.Owned && pc.OwnerPid == la.Worker().Pid)
	}
	// Output:
	// verified: true
	// GREETING present: true matches: true
	// port owned by the worker: true
}

// A Go-built launch is checked by the same rules as a spec file, and the
// error names the field.
func ExampleStart_invalid() {
	_, err := launcher.Start(context.Background(), &schema.Launch{Name: "web"}, launcher.Options{StateDir: os.TempDir()})
	var e *launcher.Error
	var inv *schema.InvalidError
	if errors.As(err, &e) && errors.As(err, &inv) {
		fmt.Println(e.Outcome)
		for _, p := range inv.Problems {
			fmt.Println(p.Field)
		}
	}
	// Output:
	// usage error
	// command
}
