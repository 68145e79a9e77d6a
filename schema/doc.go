// Package schema decodes childproof's HCL spec language into validated Go
// structs, reporting every problem as an HCL diagnostic with a source range.
//
// The structs are plain Go values: a Go program can build a Launch without
// any HCL and hand it to the launcher.
package schema
