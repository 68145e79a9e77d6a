// Package fscache asks the file system once what the lint walk needs to
// know of a path: whether it is a regular file that may be read (never one
// under /proc, /sys or /dev, also through a symlink: some block or never
// end) and its first bytes.
package fscache
