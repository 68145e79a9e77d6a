package schema

import "github.com/hashicorp/hcl/v2"

// blockSchemas are the schemas of the blocks a spec may hold, by their
// path from the file's top (launch.port): the one table Places reads, and
// with roleSchema the one description of the spec's shape. shape_test.go
// holds to it the raw structs' tags (the validator), the decoding steps,
// spec.GoField, specrule.Explain and docs/spec.md's attribute tables.
var blockSchemas = map[string]*hcl.BodySchema{
	"variable":       variableSchema,
	"launch":         launchSchema,
	"alias":          aliasSchema,
	"launch.worker":  workerSchema,
	"launch.port":    portSchema,
	"launch.ready":   readySchema,
	"launch.log":     logSchema,
	"launch.restart": restartSchema,
	"launch.slurm":   slurmSchema,
	"launch.stop":    stopSchema,
}

// rolePath is the path of a labelled worker block, a role, whose schema
// (roleSchema) is not the unlabelled worker block's.
const rolePath = `launch.worker "NAME"`

// Places lists every attribute of the spec language by its path
// (launch.worker.exe, variable.default, alias.use; a role's as
// launch.worker "NAME".ports): everywhere an expression, and so env() or
// file(), can be written. A block type the table does not know is listed
// as its path with a trailing "." so that a test over Places fails until
// it is added.
func Places() []string {
	var out []string
	var walk func(path string, s *hcl.BodySchema)
	walk = func(path string, s *hcl.BodySchema) {
		for _, a := range s.Attributes {
			out = append(out, path+"."+a.Name)
		}
		for _, b := range s.Blocks {
			p := path + "." + b.Type
			if bs, ok := blockSchemas[p]; ok {
				walk(p, bs)
			} else {
				out = append(out, p+".")
			}
		}
	}
	for _, b := range rootSchema.Blocks {
		if bs, ok := blockSchemas[b.Type]; ok {
			walk(b.Type, bs)
		} else {
			out = append(out, b.Type+".")
		}
	}
	walk(rolePath, roleSchema)
	return out
}
