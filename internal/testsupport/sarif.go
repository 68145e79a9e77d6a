package testsupport

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
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sarifSchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// CheckSARIF returns an error unless out is JSON that the SARIF 2.1.0
// schema accepts: what `childproof lint` and `check` print with
// --format sarif, and what lintreport writes.
func CheckSARIF(out []byte) error {
	s, err := sarifSchema()
	if err != nil {
		return fmt.Errorf("the vendored SARIF schema: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("fails the SARIF 2.1.0 schema: %w", err)
	}
	return nil
}
