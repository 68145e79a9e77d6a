package launchertest_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/schema"
)

// This starts one server for a whole test package, as a TestMain does
// (there is no testing.TB there), uses it and stops it. Tests use
// launchertest.Start, which stops the server when the test ends.
func ExampleShared() {
	port, err := launchertest.Port()
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := &schema.Launch{
		Name:    "shared-web",
		Command: []string{"python3", "-m", "http.server", "--bind", "127.0.0.1", strconv.Itoa(port)},
		Ports:   []schema.Port{{Name: "http", Number: port}},
		// python3 may be a shim (pyenv's) that a busy machine starts slowly.
		Ready: schema.Ready{Timeout: time.Minute},
	}
	la, stop, err := launchertest.Shared(context.Background(), spec, launcher.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop() // in a TestMain: after m.Run, before os.Exit

	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(la.Spec.Ports[0].Number) + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(la.Report.Verified, resp.StatusCode)
	// Output:
	// true 200
}
