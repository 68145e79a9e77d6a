// Package nesting bounds how deep a shell script nests before it is
// parsed: one linear scan that counts brackets, expansions, compound
// commands and &&/||/| chains as mvdan.cc/sh's parser would recurse on
// them.
package nesting
