package importspec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/importspec"
)

// This turns a launch script into a spec that starts the same server
// without it. Nothing runs: the script is read.
func ExampleImport() {
	dir, err := os.MkdirTemp("", "childproof-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "serve.sh")
	src := `#!/bin/sh
cd "$(dirname "$0")"
export MODE=fast
exec python3 -m http.server 8080
`
	if err := os.WriteFile(script, []byte(src), 0o755); err != nil {
		fmt.Println(err)
		return
	}
	s, err := importspec.Import(context.Background(), script, nil, importspec.Options{Name: "web", SpecDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(s.Text), "\n") {
		// The comments say what the script did that the spec replaces.
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			fmt.Println(line)
		}
	}
	fmt.Println("notes:", len(s.Notes), "to finish by hand:", s.Todos())
	// Output:
	// launch "web" {
	//   command = ["python3", "-m", "http.server", "8080"]
	//   dir     = "."
	//   env = {
	//     MODE = "fast"
	//   }
	//   port "main" {
	//     number = 8080
	//   }
	// }
	// notes: 5 to finish by hand: 0
}
