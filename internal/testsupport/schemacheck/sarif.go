package schemacheck

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchemaJSON is the SARIF 2.1.0 JSON schema, vendored from the OASIS
// sarif-spec repository.
//
//go:embed testdata/sarif-schema-2.1.0.json
var sarifSchemaJSON []byte

// sarifSchema is the compiled schema, compiled once per test binary.
var sarifSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return compileSchema("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json", sarifSchemaJSON)
})

// CheckSARIF returns an error unless out is JSON that the SARIF 2.1.0
// schema accepts: what `childproof lint` and `check` print with
// --format sarif, and what lintreport writes.
func CheckSARIF(out []byte) error {
	return checkSchema(sarifSchema, "the vendored SARIF schema", "the SARIF 2.1.0 schema", out)
}

// compileSchema compiles a JSON schema document under its URL.
func compileSchema(url string, doc []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// checkSchema validates out against the schema compiled by get; what and
// against name the schema in errors.
func checkSchema(get func() (*jsonschema.Schema, error), what, against string, out []byte) error {
	s, err := get()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("fails %s: %w", against, err)
	}
	return nil
}
