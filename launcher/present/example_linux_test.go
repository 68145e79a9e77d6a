package present_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/launcher/present"
	"github.com/childproof/childproof/spec"
)

// This starts a server and writes what childproof run prints once the
// worker is verified: the text, then the JSON.
func ExampleNewRunOutput() {
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
		Env:     map[string]string{"MODE": "fast"},
		Ports:   []spec.Port{{Name: "http", Number: port}},
		// python3 may be a shim (pyenv's) that a busy machine starts slowly.
		Ready: spec.Ready{Timeout: time.Minute},
	}
	ctx := context.Background()
	la, err := launcher.Start(ctx, l, launcher.Options{StateDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer la.Stop(ctx)
	out := present.NewRunOutput(la)

	// The text childproof run prints; the pid, port, path and digest in
	// it change from run to run, so this shows the rest.
	var text strings.Builder
	out.WriteText(&text)
	for _, line := range strings.Split(text.String(), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "env:") || strings.HasPrefix(line, "ready:") || strings.HasPrefix(line, "round:") {
			before, _, _ := strings.Cut(line, " (")
			fmt.Println(before)
		}
	}

	// The JSON of childproof run --format json.
	var js bytes.Buffer
	if err := present.JSON(&js, out); err != nil {
		fmt.Println(err)
		return
	}
	var got struct {
		Verified bool `json:"verified"`
		Round    int  `json:"round"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", got)
	// Output:
	// env:     MODE present, matches
	// ready:   yes
	// round:   1
	// {Verified:true Round:1}
}
