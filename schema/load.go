package schema

import (
	"errors"

	"github.com/hashicorp/hcl/v2"
)

// LoadOptions tunes Load. The zero value reads variables' defaults only and
// the process environment for env().
type LoadOptions struct {
	// Vars are --var K=V assignments, as raw strings; a value that parses as
	// a number or bool takes that type.
	Vars map[string]string
	// LookupEnv answers env(NAME). Nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Load reads, decodes and validates the spec file at path. The returned
// map holds every parsed file's bytes so diagnostics can show snippets.
//
// This placeholder is replaced by the decoder.
func Load(path string, opts LoadOptions) (*File, map[string]*hcl.File, hcl.Diagnostics) {
	return nil, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: errors.New("schema: decoder not built yet").Error()}}
}
