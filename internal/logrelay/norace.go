//go:build !race

package logrelay

// RaceEnv is nothing outside a race-detector build: the relay's
// environment is the one launcher gives it.
func RaceEnv() []string { return nil }
