// Package dotenv reads env files: KEY=VALUE lines as a POSIX shell would
// source them, without running anything.
//
// It understands comments, blank lines, an optional "export " keyword,
// single quotes (literal), double quotes (backslash escapes, may span lines)
// and unquoted values (trailing " #comment" removed). A value that a shell
// would expand ($NAME, ${…}, $(…), backquotes) is marked Dynamic: its text is
// kept, but the value at run time is unknown to a static reader.
// ParseAs reads a file as one Dialect of its loaders reads it: the shell's
// words, $(cat F)'s words, read -r's lines, a dotenv library or
// python-dotenv (CRLF, a byte-order mark, trailing comments and export
// prefixes mean different things to each).
// SetValue edits one assignment in place, byte for byte (relaunch
// --in-env-file); Edit.Undo reverses it exactly.
package dotenv
