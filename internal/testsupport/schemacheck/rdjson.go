package schemacheck

import (
	_ "embed"
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
	return compileSchema("https://github.com/reviewdog/reviewdog/proto/rdf/jsonschema/DiagnosticResult.json", rdjsonSchemaJSON)
})

// CheckRDJSON returns an error unless out is JSON that reviewdog's
// DiagnosticResult schema accepts: what `childproof lint` and `check`
// print with --format rdjson.
func CheckRDJSON(out []byte) error {
	return checkSchema(rdjsonSchema, "the copied rdjson schema", "reviewdog's DiagnosticResult schema", out)
}
