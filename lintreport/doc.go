// Package lintreport writes lint findings (envres.Result) and spec
// diagnostics in the output formats shared by `childproof lint` and
// `childproof check`: text, json, sarif and github.
package lintreport
