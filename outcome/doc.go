// Package outcome is the one table of how a childproof command or launch
// ends and the exit code each way calls for (the contract's §2): a Kind
// per row, Kind.Code its code, and ExitCode the status for an error,
// found along its %w chain. Package verify gives a report's exit_code
// from it, package launcher classifies its errors with it, and the
// childproof command exits with ExitCode of the error a command returns.
package outcome
