// Package schema decodes childproof's HCL spec language into validated Go
// structs, reporting every problem as an HCL diagnostic with a source range.
//
// The structs are package spec's (Launch here is an alias of spec.Launch):
// a Go program builds a spec.Launch without any HCL, and without linking
// this package, and hands it to the launcher.
package schema
