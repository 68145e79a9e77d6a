// Package output is what a launch's tree printed, as lines: the follower
// that gives the masked output to launcher.Options.Output and sees the
// lines that Ready.Log and the spec's ready.log wait for (Feed in the
// foreground, Follow of a detached launch's log), and Lines, the writer
// that keeps a stream's last lines for a test and waits on them.
package output
