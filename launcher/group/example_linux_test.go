package group_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/group"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/spec"
)

// This starts a web server that depends on a store, as childproof up does:
// the store starts and is verified first. Down stops them in reverse.
func ExampleUp() {
	dir, err := os.MkdirTemp("", "childproof-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	server := func(name string, dependsOn ...string) *spec.Launch {
		port, err := launchertest.Port()
		if err != nil {
			return nil
		}
		return &spec.Launch{
			Name:      name,
			Command:   []string{"python3", "-m", "http.server", "--bind", "127.0.0.1", strconv.Itoa(port)},
			Ports:     []spec.Port{{Name: "http", Number: port}},
			DependsOn: dependsOn,
			// python3 may be a shim (pyenv's) that a busy machine starts slowly.
			Ready: spec.Ready{Timeout: time.Minute},
		}
	}
	web, store := server("web", "store"), server("store")
	if web == nil || store == nil {
		fmt.Println("no free port")
		return
	}

	ctx := context.Background()
	g, err := group.Up(ctx, []*spec.Launch{web, store}, func(*spec.Launch) launcher.Options {
		return launcher.Options{StateDir: dir}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, la := range g.Launches() {
		fmt.Println("started", la.Spec.Name, "verified:", la.Report.Verified)
	}
	stopped, err := g.Down(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	started := g.Launches()
	for i, r := range stopped { // in reverse start order
		fmt.Println("stopped", started[len(started)-1-i].Spec.Name, "exited:", r.Exited)
	}
	// Output:
	// started store verified: true
	// started web verified: true
	// stopped web exited: true
	// stopped store exited: true
}
