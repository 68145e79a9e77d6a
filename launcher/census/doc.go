// Package census is ps, stop and down's stopping of recorded launches:
// Take checks every record of a state dir against the kernel (the
// worker's fingerprint, the members left of a gone worker, who holds the
// recorded ports) and CountStopped counts the stopped ones; StopRecord and
// StopLaunch stop a recorded launch through pidfds, only while its
// worker's fingerprint matches, and mark its record stopped. It reads
// and changes the state dir through a statedir.Store; package launcher
// gives it the re-selection of a respawned worker (State.Reselect).
package census
