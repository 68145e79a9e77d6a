// Package recorded inspects a recorded launch as a command that launches
// nothing sees it: the check of its recorded evidence (Check, Tree,
// VerifyRanks, Verify), the re-selection of a respawned worker in its
// live tree (Reselect, State.ReselectLive), verify SPEC and explain's
// views of it (State.VerifyRunning, State.Explain, State.ExplainPid), a
// NAME argument resolved by its record (State.SpecArg, State.LoadRunning)
// and its crash-fix rounds as they stand now (State.History,
// FillRoundEnds). It reads the state dir through a statedir.Store and a
// spec file again only through State.ReadSpec; package launcher names
// these as its own.
package recorded
