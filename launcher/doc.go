// Package launcher starts a process tree from a launch spec without rc
// files, supervises it, records it in the state dir, relaunches it with a
// declared delta and stops it. Whether a start worked is decided by package
// verify, on the worker's own kernel records, before Start returns.
//
// What a command reads back from the state dir goes through a State: the
// records (LoadRunning, VerifyRunning, ExplainRecorded), the census (Census),
// the crash-fix rounds (History, DiffRounds), a launch's masked log
// (ReadLog) and the one secret set every output is masked with (Secrets).
// Package launcher/present holds the results' text and JSON forms, so that
// a Go program prints what the childproof command prints.
//
// A Go test can use it without HCL:
//
//	l, err := launcher.Start(ctx, &spec.Launch{Name: "srv", Command: []string{"./srv"}, …}, launcher.Options{})
//	if err != nil { … }            // *launcher.Error: its Outcome, and Report the evidence
//	defer l.Stop(context.Background())
//	r, err := l.Verify(ctx)        // re-check at any time
package launcher
