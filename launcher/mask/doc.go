// Package mask decides which secrets a launch's outputs are masked with:
// the one secret set of a launch, built from its spec and resolved
// environment (SecretSet), what a command that launches nothing knows of
// a launch's secrets from the state dir (Known, Of, PidReport), and an
// error with those values hidden (Err). Package redact does the masking.
package mask
