// Package relay is the launcher's side of a launch's output: the pipe the
// tree writes its stdout and stderr to, and its reader, which masks the
// output into the log (a goroutine in the foreground, the log relay
// process of package internal/logrelay when detached); waiting for what
// the tree wrote to reach the log (Drain, Finish), and ending a relay that
// outlives its tree (End, Collect).
package relay
