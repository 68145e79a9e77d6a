// Package progs knows, from their manuals, what some programs a script
// runs do, by their command lines alone: which run and return, which
// detach a daemon, which activate an environment, which run a tool by its
// package name or load an env file first, which feed a here-document to a
// script somewhere else, which run a package.json script, which
// operands of a filter name files, which commands are never the worker
// and which only keep the process alive after a background launch,
// whether an argument binds every interface, and what a shebang asks of
// its shell. It reads no file but the text it is given and walks
// nothing: envres/interp asks it about the commands it meets.
package progs
