// Package statedir owns the state dir's storage. It holds the injective
// encoding of a launch name into the names of its state files (record,
// log, mask, lock, history directory, cgroup) and the layout built on it,
// with the migration of state dirs of the earlier naming. It opens a state
// dir (Open: the default dir, the secure path walk, the StrictModes checks
// of every entry, the digest key and the record key derived from it) as a
// Store, and through it takes the launch locks, checks that a launch's
// files can be written, starts and rotates logs and reads their tails.
// Every state file is read and opened through it (ReadFile, OpenFile),
// never following a symlink, refusing an entry someone else could write.
// It keeps the launches' records (Record: sealed with the record key,
// authenticated before anything reads them, summarized for the census),
// their log masks and their crash-fix rounds (Round, under the history
// lock; DiffRounds compares two), and is the one place a record is marked
// stopped (MarkStopped).
//
// Every command that reads or changes a launch's state finds its files
// through a Layout: no other package builds a state file name from a
// launch name. Its failures are *failure.Error values, as launcher's are.
package statedir
