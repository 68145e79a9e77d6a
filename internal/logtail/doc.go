// Package logtail reads a launch's log file: its last lines, and then what
// the worker appends to it, across the rotation a new launch of the same
// name makes (the log renamed to NAME.log.1 and a new NAME.log created).
package logtail
