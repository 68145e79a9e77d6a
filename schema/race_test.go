//go:build race

package schema

// raceDetector reports whether the tests run under the race detector.
const raceDetector = true
