// Package bufpool keeps the byte buffers of files that are read, parsed
// and dropped (a /proc record, a state file compared with what was
// written), so that a launch's reads do not each allocate one.
package bufpool
