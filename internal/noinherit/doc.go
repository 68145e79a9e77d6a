// Package noinherit starts a process that inherits no descriptor of this
// process beyond 0, 1 and 2 (Run), leaving the caller's own descriptors
// as they were.
package noinherit
