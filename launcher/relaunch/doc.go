// Package relaunch is the crash-fix round: it stops a recorded launch,
// starts it again with declared overrides, and proves by digest that the
// new worker's environment differs from the recorded one by exactly those
// names.
package relaunch
