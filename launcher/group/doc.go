// Package group starts several dependent launches from Go — what
// `childproof up` and `down` do for a spec file's launches: Up starts
// them in depends_on order, each verified (environment, port ownership,
// readiness) before any launch that depends on it starts, and Down stops
// them in the reverse order. A failed Up stops what it started, in
// reverse order, before it returns.
//
//	g, err := group.Up(ctx, []*spec.Launch{api, db}, nil) // db first: api depends on it
//	if err != nil { … }                                      // names the launch that failed
//	defer g.Down(context.Background())
//
// Options.Up is Up as the CLI's up does it: it leaves a launch that
// already runs from the same spec and verifies as it is (Adopt; Running
// says whether one does) and says each step as an Event (adopted,
// starting, started, failed to start), whose String is up's line.
// UpWith lets the caller start each launch, and Replace puts a restart
// in its launch's place. DownRecorded is
// `childproof down`: it stops launches by their records in a state
// directory, so it needs no Group.
//
// Supervise watches a group's launches, restarting them as their restart
// blocks say; SuperviseSignals and Forward drive a foreground supervision
// from the caller's signals (SIGHUP forwarded; SIGINT or SIGTERM stop it,
// through an Escalation: forwarded first, then SIGTERM, then SIGKILL).
//
// In a test, launchertest.Up does the same with one cleanup per launch,
// so the test's cleanups stop them in reverse order.
package group
