// Package design holds no code: its test checks that the packages of the
// module import each other only as docs/design.md says.
package design
