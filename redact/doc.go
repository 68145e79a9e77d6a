// Package redact is childproof's one definition of how a secret value is kept
// out of everything it prints or stores: argv elements, diagnostics, worker
// output and log tails all go through a Set. What counts as secret (values
// from env(), file(), an env file, --set-secret, or of a name in a
// launch's secret list) is decided by the caller that gathers the secret
// set (Secret: name, value where known, keyed digest, occurrences); how it
// is hidden is decided here, and every Set is built by Of.
//
// It is public because a library user prints what a launch printed too: a
// Go test that shows a worker's last lines (statedir.Tail) on failure masks
// them with the launch's Set (launcher.Env.Secrets, schema.Launch.Mask),
// exactly as the CLI does.
package redact
