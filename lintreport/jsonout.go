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
