// Package fdwait waits for any of several file descriptors to become
// readable in the runtime's network poller, so that no thread sits in a
// blocking syscall meanwhile.
package fdwait
