// Package present renders launcher's results as the childproof command
// prints them: the text and JSON of run, relaunch, history and ps.
package present
