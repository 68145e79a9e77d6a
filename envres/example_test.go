package envres_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/childproof/childproof/envres"
)

// This lints a dispatch script that re-sources an env file after the
// launcher set the key (the third field report): the override is lost.
func ExampleLint() {
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
	for _, f := range res.Findings {
		fmt.Printf("%s:%d:%d: %s %s %v\n", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Variables)
	}
	// Output:
	// launch.sh:3:1: error env-file-clobber [API_KEY]
}
