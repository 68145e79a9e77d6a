// Package precision holds childproof lint's precision corpus: a manifest
// (manifest.tsv: repository, commit, path) of public shell scripts — CI
// helpers, installers, container entrypoints, ML launchers, deploy tools —
// the script that re-reads them into a cache directory (fetch.sh; the
// scripts themselves are not committed), and the hand labels of every
// error-level finding lint reports on them (labels.tsv). Its test fails
// when a finding labelled wrong comes back. docs/lint.md gives the figures.
package precision
