// Package launcher starts a process from a launch spec without rc files,
// finds the worker that does the work, proves from the kernel's own records
// that the spec reached it (environ, socket table, fds, process chain), and
// supervises, records, verifies and stops it.
//
// A Go test can use it without HCL:
//
//	l, err := launcher.Start(ctx, &schema.Launch{Name: "srv", Command: []string{"./srv"}, …}, launcher.Options{})
//	if err != nil { … }            // *launcher.Error: Code is the CLI exit code, Report the evidence
//	defer l.Stop(context.Background())
//	r, err := l.Verify(ctx)        // re-check at any time
package launcher
