// Package atomicfile writes a user's file (a spec import writes, a unit
// export writes) so that a reader sees the old file or the whole new one,
// never a part: a temporary file in the same directory, renamed into
// place.
package atomicfile
