package present

import (
	"encoding/json"
	"io"
)

// JSON writes v, one of the launch commands' objects (run, relaunch,
// stop, down, ps, history, verify, explain), as indented JSON and a
// newline, with HTML characters kept as they are ("<secret>" stays
// readable), unlike json.Marshal.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// JSONLine writes v as one compact JSON object and a newline: a line of
// a JSON Lines stream (up --format json, one report per launch).
func JSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
