package treelook

import "time"

// listenSlowAfter is how long the find loop looks for the listener every
// 20 ms before it looks every 50 ms.
const listenSlowAfter = 10 * time.Second

// Pause waits between two looks for the worker and its listener:
// 1 ms to 200 ms, when a server that binds at once shows up, 5 ms to 1 s,
// 20 ms to listenSlowAfter, then 50 ms, so that a slow starter costs a
// few percent of a core (each look is a wake-up of the process; one that
// finds nothing changed costs ~0.3 ms: Looker.Changed) and is still seen
// ~10 ms after it listens (~25 ms once it has taken longer than
// listenSlowAfter, a model's load of minutes). Always parked
// (time.Sleep), never in a syscall: the runtime's sysmon takes a P back
// from a goroutine blocked in one, which counts as work and keeps it
// waking every 20 µs while the looks go on (measured: a 200 µs
// nanosleep between the first looks made sysmon a tenth of a library
// start's CPU; a 10 ms one, ~1,100 wake-ups a second, most of the CPU
// of a long wait).
func Pause(waited time.Duration) {
	d := 20 * time.Millisecond
	switch {
	case waited >= listenSlowAfter:
		d = 50 * time.Millisecond
	case waited < 200*time.Millisecond:
		d = time.Millisecond
	case waited < time.Second:
		d = 5 * time.Millisecond
	}
	time.Sleep(d)
}
