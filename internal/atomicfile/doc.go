// Package atomicfile writes a file so that a reader sees the old file or
// the whole new one, never a part: a temporary file in the same
// directory, renamed into place. It writes the user's files (a spec import
// writes, a unit export writes) and the launcher's state files (records,
// rounds, log masks; WriteSync where they must survive a crash of the
// machine).
package atomicfile
