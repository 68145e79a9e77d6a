// Package statedir is the one home of a launch's identity in a state dir:
// the injective encoding of a launch name into the names of its state
// files (record, log, mask, lock, history directory, cgroup), the layout
// of the state dir built on it, the migration of state dirs written with
// the earlier, non-injective naming, and the launch lock's flock.
//
// Every command that reads or changes a launch's state finds its files
// through a Layout: no other package builds a state file name from a
// launch name.
package statedir
