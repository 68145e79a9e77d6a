package schema_test

import (
	"fmt"

	"github.com/childproof/childproof/schema"
)

// This decodes a spec from bytes; a broken spec gets diagnostics with the
// file, line and column, in the words of hashicorp/hcl.
func ExampleParse() {
	src := []byte(`launch "api" {
  command = ["sh", "-c", "exec sleep 60"]
  env     = { API_KEY = "k" }
  require = ["API_KEY"]
  port "http" {
    number = 8080
  }
}
`)
	f, _, diags := schema.Parse(src, "spec.hcl", schema.LoadOptions{})
	if diags.HasErrors() {
		fmt.Println(diags.Error())
		return
	}
	l, err := f.Launch("api")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Name, l.Command, l.Require, l.Ports[0].Number)

	_, _, diags = schema.Parse([]byte("launch \"api\" {\n  command = 42\n}\n"), "bad.hcl", schema.LoadOptions{})
	for _, d := range diags {
		fmt.Printf("%s: %s\n", d.Subject, d.Summary)
	}
	// Output:
	// api [sh -c exec sleep 60] [API_KEY] 8080
	// bad.hcl:2,13-15: Incorrect attribute value type
}
