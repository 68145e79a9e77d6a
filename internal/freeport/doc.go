// Package freeport picks TCP ports for tests that nothing listens on and
// that no other test binary on the machine was handed while it runs
// (launchertest.FreePort's picker). It depends on the standard library
// only, so that a test importing launchertest links no test-support
// weight.
package freeport
