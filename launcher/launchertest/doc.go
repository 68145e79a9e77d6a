// Package launchertest starts real server processes for Go tests through
// package launcher: verified on the worker, stopped when the test ends, and
// failing the test with the worker's exit status and last lines when it
// dies before it is ready.
package launchertest
