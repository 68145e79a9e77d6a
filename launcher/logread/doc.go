// Package logread reads a recorded launch's log back, line by line,
// masked with every secret known of the launch (Read, for the logs
// command), following it across a new launch of the same name while the
// launch runs (Running).
package logread
