// Package treeevents hears a launched tree's forks, execs and exits
// through the proc connector (root only) and wakes whoever waits on the
// tree: readiness probes and foreground supervision. It knows no launch:
// package launcher listens before the exec and follows the root after.
package treeevents
