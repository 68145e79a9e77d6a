// Package resolve says what a worker start's argv and exported values are,
// for envres/plan: literal text and the caller's variables (plan.Part),
// from the walk's abstract state where the worker starts and, for a value
// the walk does not know, the one statement that set it (PORT=${PORT:-8080},
// URL="http://$HOST:$PORT"). A value read from an env file is never
// literal text: it is the caller's variable, loaded. Generic, as
// envres/internal/expand is, in the walk's events (E) and context (C).
package resolve
