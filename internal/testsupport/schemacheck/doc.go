// Package schemacheck says whether lint's SARIF and rdjson output is what
// their published JSON schemas (vendored in testdata) accept, for
// lintreport's and cmd/childproof's tests. It is a package of its own
// because the schema library's init compiles five metaschemas at every
// start of a binary that links it: the test binaries that only need
// testsupport (which run themselves as helper processes) do not.
package schemacheck
