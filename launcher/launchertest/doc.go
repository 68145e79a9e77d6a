// Package launchertest starts real server processes for Go tests through
// package launcher: verified on the worker, stopped when the test ends,
// and failing the test with the worker's exit status and last lines when
// it dies before it is ready.
//
// What the server prints is streamed into the test log ("NAME| line",
// secrets masked); when the test fails its whole log is kept — in
// t.ArtifactDir() under go test -artifacts, else in the test log — and the
// failure says where. StartContext bounds a start by a context, Up starts
// dependent launches in depends_on order (stopped in reverse by the
// test's cleanups), FreePort and FreePortIn pick ports no other test of
// the binary, nor another test binary running, gets. Readiness beyond the spec's (a log line, a check
// function, an HTTP status or body matcher), the stop grace period and an
// output writer of one's own are launcher.Options fields. A launch written
// in an HCL spec file is started by package specfile, which links HCL. docs/library.md
// has the whole story.
package launchertest
