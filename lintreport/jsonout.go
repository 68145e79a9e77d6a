package lintreport

import (
	"encoding/json"
	"io"
)

// JSON writes v as indented JSON followed by a newline. HTML characters are
// kept as they are ("<command>" stays readable), unlike json.Marshal.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// JSONLine writes v to w as one compact JSON object and a newline: a line
// of a JSON Lines stream (up --format json, one report per launch).
func JSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
