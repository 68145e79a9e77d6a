package lintreport_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/lintreport"
)

// This lints a launch script and writes the findings in the gcc format,
// one line each, as editors and CI logs read them (the other Formats are
// for CI annotations and code-scanning tools).
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "childproof-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	script := "#!/bin/bash\nset -a\n. ./.env\nset +a\nexec ./server\n"
	if err := os.WriteFile(filepath.Join(dir, "launch.sh"), []byte(script), 0o755); err != nil {
		fmt.Println(err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("API_KEY=from-the-file\n"), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	res, err := envres.Lint(context.Background(), envres.Config{
		Dir:       dir,
		Scripts:   []string{"launch.sh"},
		Overrides: []envres.Override{{Name: "API_KEY"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := lintreport.Write(os.Stdout, "gcc", res, lintreport.Options{Dir: dir}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// launch.sh:3:1: error: .env is loaded into the exported environment and assigns protected variable API_KEY a value that may differ from the override's: the worker gets the file's value, not the override [env-file-clobber]
}
