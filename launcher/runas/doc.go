// Package runas runs a launch as its spec's user and group: the
// credential the tree is started with (Credential), refused before
// anything starts when it cannot be had, and the check that the worker
// runs with it (Check, CheckLaunch).
package runas
