// Package ci holds the CI examples (README.md, the workflow files); its
// test runs the repository's GitHub Action (action.yml) the way the runner
// does, against a sample repository layout.
package ci
