// Package probe is the readiness probe of a launch's declared ports: a
// TCP connect, or one HTTP/1.1 GET written over the connection (no
// net/http in the binary), judged by its status or by a matcher of the
// answer.
package probe
