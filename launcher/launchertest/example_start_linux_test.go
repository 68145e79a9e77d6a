package launchertest_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/spec"
)

// This is the body of a test of a server on a port of its own. FreePort
// picks a port no other test gets, Start fails the test unless the server
// is verified on it, and stops the server when the test ends. It is not
// run here: only go test gives a test its *testing.T.
func ExampleStart() {
	var t *testing.T // a Test function's argument

	port := launchertest.FreePort(t)
	la := launchertest.Start(t, &spec.Launch{
		Name:    "web",
		Command: []string{"python3", "-m", "http.server", "--bind", "127.0.0.1", strconv.Itoa(port)},
		Env:     map[string]string{"MODE": "fast"},
		Ports:   []spec.Port{{Name: "http", Number: port}},
	}, launcher.Options{})

	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /: %s from the worker (pid %d)", resp.Status, la.Worker().Pid)
	}
}
