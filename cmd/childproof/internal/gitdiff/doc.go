// Package gitdiff finds the lines of a git work tree that changed since a
// revision (git diff --unified=0 against the work tree, plus untracked
// files), so that `childproof lint --diff-base REF` reports only findings
// on changed lines.
package gitdiff
