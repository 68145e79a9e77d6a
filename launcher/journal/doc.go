// Package journal builds what a launch keeps of itself in the state dir
// as it goes: its record (New: before its tree exists, provisional, and
// Verified once its worker is verified, with the digests of its
// environment, its ranks and its members) and its round in the history
// (Begin, Finish, Refuse). Each is a function of plain values a launch
// holds (Launch, Worker, Attempt), never of package launcher's Launch;
// the records and rounds are statedir's, written through its Store.
package journal
