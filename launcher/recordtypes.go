package launcher

import "github.com/childproof/childproof/launcher/statedir"

// The record types are the state dir's (launcher/statedir), named here so
// that launcher's callers keep their names.
type (
	// Record is what the state dir keeps of a launch (statedir.Record).
	Record = statedir.Record
	// RecordRank is one worker of a multi-process job (statedir.RecordRank).
	RecordRank = statedir.RecordRank
	// RecordMember is one exec'd member of a launched tree
	// (statedir.RecordMember).
	RecordMember = statedir.RecordMember
	// RecordVar is a spec variable a launch was started with
	// (statedir.RecordVar).
	RecordVar = statedir.RecordVar
	// RecordPort is a recorded port (statedir.RecordPort).
	RecordPort = statedir.RecordPort
	// RecordSecret is the digest of one secret value
	// (statedir.RecordSecret).
	RecordSecret = statedir.RecordSecret
	// RecordSelector is a launch's worker selector as its record keeps it
	// (statedir.RecordSelector).
	RecordSelector = statedir.RecordSelector
	// RecordRole is one worker "NAME" block of a recorded launch
	// (statedir.RecordRole).
	RecordRole = statedir.RecordRole
	// UntrustedClaim is what a record that fails authentication says of
	// its worker (statedir.UntrustedClaim).
	UntrustedClaim = statedir.UntrustedClaim
)

// ErrUntrusted is wrapped by the error Load returns for a record whose MAC
// does not verify (statedir.ErrUntrusted).
var ErrUntrusted = statedir.ErrUntrusted
