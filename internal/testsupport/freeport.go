package testsupport

import "github.com/childproof/childproof/internal/freeport"

// MinPort is the lowest port FreePort picks (freeport.MinPort).
const MinPort = freeport.MinPort

// FreePort is freeport.FreePort.
func FreePort() (int, error) { return freeport.FreePort() }

// ReleasePort is freeport.Release.
func ReleasePort(port int) { freeport.Release(port) }

// FreePortIn is freeport.FreePortIn.
func FreePortIn(lo, hi int) (int, bool) { return freeport.FreePortIn(lo, hi) }

// EphemeralLow is freeport.EphemeralLow.
func EphemeralLow() int { return freeport.EphemeralLow() }
