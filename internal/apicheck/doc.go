// Package apicheck holds tests about the module's public API as a whole:
// what a library user can name, no package may hand out from internal/.
package apicheck
