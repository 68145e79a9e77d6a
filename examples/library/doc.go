// Package library shows package launcher used as a library by a Go test
// suite that needs a real server binary: examples/mock-llm is built into a
// temporary directory, started through launcher (or launchertest), proven
// on its own /proc records, exercised and stopped. See library_linux_test.go and
// docs/library.md.
package library
