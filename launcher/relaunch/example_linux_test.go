package relaunch_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/launcher/relaunch"
	"github.com/childproof/childproof/spec"
)

// This is one crash-fix round: a server runs with MODE=slow, and Relaunch
// replaces it with one given MODE=fast. The round is accepted only when
// MODE is the one name whose digest changed on the worker.
func ExampleRelaunch() {
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
	l := &spec.Launch{
		Name:    "web",
		Command: []string{"python3", "-m", "http.server", "--bind", "127.0.0.1", strconv.Itoa(port)},
		Env:     map[string]string{"MODE": "slow"},
		Ports:   []spec.Port{{Name: "http", Number: port}},
		// python3 may be a shim (pyenv's) that a busy machine starts slowly.
		Ready: spec.Ready{Timeout: time.Minute},
	}
	ctx := context.Background()
	opts := launcher.Options{StateDir: dir}
	first, err := launcher.Start(ctx, l, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	firstDone := make(chan struct{})
	go func() { first.Wait(); close(firstDone) }() // the first round's supervisor

	opts.Set = map[string]string{"MODE": "fast"}
	second, res, err := relaunch.Relaunch(ctx, l, relaunch.Options{Options: opts})
	if err != nil {
		fmt.Println(err)
		first.Stop(ctx)
		return
	}
	defer second.Stop(ctx)
	<-firstDone

	fmt.Println("round", res.Round, "verified:", second.Report.Verified, "previous stopped:", res.Stopped.Exited)
	for _, d := range res.Delta.Changed {
		fmt.Println(d.Name, d.How, "declared:", d.Declared)
	}
	// Output:
	// round 2 verified: true previous stopped: true
	// MODE changed declared: true
}
