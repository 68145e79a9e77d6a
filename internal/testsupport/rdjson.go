package testsupport

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// rdjsonSchemaJSON is reviewdog's Diagnostic Result JSON schema, copied
// from reviewdog's proto/rdf/jsonschema (the .source file beside it says
// from which commit).
//
//go:embed testdata/reviewdog-rdjson-DiagnosticResult.json
var rdjsonSchemaJSON []byte

var rdjsonSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(rdjsonSchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "https://github.com/reviewdog/reviewdog/proto/rdf/jsonschema/DiagnosticResult.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// CheckRDJSON returns an error unless out is JSON that reviewdog's
// DiagnosticResult schema accepts: what `childproof lint` and `check`
// print with --format rdjson.
func CheckRDJSON(out []byte) error {
	s, err := rdjsonSchema()
	if err != nil {
		return fmt.Errorf("the copied rdjson schema: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("fails reviewdog's DiagnosticResult schema: %w", err)
	}
	return nil
}
