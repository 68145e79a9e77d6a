// Package failure is the one error type of the launcher packages: Error,
// its one kind (Error.Outcome), the remedy it calls for (Fix) and, for
// required variables no source gave, which source would (Missing).
// Package launcher names them launcher.Error, launcher.Fix and
// launcher.Missing; launcher/statedir returns them too, so that a state
// dir failure is the same *Error wherever it surfaces.
package failure
