//go:build !linux

package proc

import "os"

// readFile is os.ReadFile (readfile_linux.go saves its poller set-up).
func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

// readFileInto is readFile (buf unused).
func readFileInto(path string, buf []byte) ([]byte, error) { return os.ReadFile(path) }
