//go:build race

package logrelay

// raceDetector reports whether the tests run under the race detector
// (its shadow memory makes every process bigger).
const raceDetector = true
