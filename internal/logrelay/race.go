//go:build race

package logrelay

import "os"

// RaceEnv is what the relay's environment takes from its parent's in a
// race-detector build: GORACE, when set. A race binary sleeps a second
// before it exits (GORACE's atexit_sleep_ms), and every stop of a
// detached launch waits for its relay's exit; tests set atexit_sleep_ms=0.
func RaceEnv() []string {
	if v, ok := os.LookupEnv("GORACE"); ok {
		return []string{"GORACE=" + v}
	}
	return nil
}
