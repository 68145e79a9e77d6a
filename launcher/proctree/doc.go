// Package proctree is the model of a launched process tree: which of its
// processes is the worker (the selector, the port's owner, a job's ranks
// and roles), whether the tree has settled, who holds its declared ports,
// and the worker re-selected after a respawn. It reads /proc and the
// socket table through a proc.FS and a launch's spec, and knows nothing of
// a Launch: package launcher hands it the tree's pids and calls it.
package proctree
