//go:build !linux

package main

// stopLeftLaunches stops nothing: launches are Linux-only.
func stopLeftLaunches(work string) []string { return nil }
