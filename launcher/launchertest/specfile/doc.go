// Package specfile starts a launch written in an HCL spec file for a Go
// test, as launchertest.Start starts one built in Go. It is a package of
// its own so that a test that builds its launches in Go links no HCL.
package specfile
