// Package inputfile reads the files a user names as input (a spec, an env
// file, file(), a script) only when they are regular files of bounded
// size, checked on the open descriptor before any read: a FIFO, a device,
// a socket or a file of /proc or /sys (where a read can block or never
// end) is refused instead of hanging.
package inputfile
