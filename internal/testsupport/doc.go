// Package testsupport holds what the module's tests and benchmarks share
// and no product code uses:
//
//   - FreePort: TCP ports for tests, free on 127.0.0.1 now, never twice in
//     one process, and never one that another process got from it and
//     still runs with. launchertest.FreePort is its public face; the
//     launcher's own tests, which launchertest cannot serve (it imports the
//     launcher), and the test helpers of cmd/childproof use it directly.
//   - BuildProgram: a helper program of the tests (a server, a log relay)
//     built once per test binary and without its race detector.
//   - Script and WriteCorpus: realistic dispatch shell scripts for
//     benchmarks (env loads, exec chains, wrappers, functions and case
//     branches), deterministic for a given seed.
//   - WriteTree: a temporary directory of spec and script files for
//     export's and schema's tests.
//   - CheckSARIF and CheckRDJSON are in schemacheck, below this package.
//   - Its own tests about the module as a whole: no exported identifier of
//     a public package mentions a type from internal/
//     (TestNoInternalTypesInPublicAPI), and childproof lint's precision
//     corpus (TestPrecision): a manifest (testdata/precision/manifest.tsv:
//     repository, commit, path) of public shell scripts — CI helpers,
//     installers, container entrypoints, ML launchers, deploy tools — the
//     script that re-reads them into a cache directory (fetch.sh; the
//     scripts themselves are not committed), and the hand labels of every
//     error-level finding lint reports on them (labels.tsv). It fails when
//     a finding labelled wrong comes back. docs/lint.md gives the figures.
package testsupport
