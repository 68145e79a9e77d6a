// Package report writes lint findings (from envres) in the output formats
// shared by `childproof lint` and `childproof check`: text, json, sarif and
// github.
package report
