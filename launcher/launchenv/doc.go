// Package launchenv builds the environment a launched tree gets: the
// caller's inherited names, the env file and the overrides (Resolve), the
// expectations the worker is checked with (Env.Expect), and the refusal of
// a required name no source gives.
package launchenv
