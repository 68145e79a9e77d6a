// Package spec is the model of a childproof launch: what to start and what
// to prove about it (Launch and the values it holds), their defaults, and
// the checks of a Launch built in Go (Validate, CheckRun), which return an
// *InvalidError naming each field.
//
// It imports no HCL, cty or struct validator, so a Go program that builds
// its launches in Go and starts them with package launcher links none of
// them. Package schema reads the HCL spec language into these same types
// (schema.Launch is an alias of Launch) and checks a spec file's blocks by
// the same rules.
package spec
