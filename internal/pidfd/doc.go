// Package pidfd waits on process file descriptors (pidfd_open(2)): a pidfd
// becomes readable when its process exits, whatever reuses the pid after.
package pidfd
