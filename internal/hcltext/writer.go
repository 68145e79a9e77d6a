package hcltext

import "bytes"

// Writer writes an HCL body one attribute or block line at a time, in
// order; Bytes lays it out with Format. A Writer is not safe for
// concurrent use.
type Writer struct{ buf bytes.Buffer }

// Attr writes name = expr; expr is HCL already (Quote, List, Int, Bool).
func (w *Writer) Attr(name, expr string) {
	w.buf.WriteString(name)
	w.buf.WriteString(" = ")
	w.buf.WriteString(expr)
	w.buf.WriteByte('\n')
}

// Block opens a block: typ "label" … {. Close it with End.
func (w *Writer) Block(typ string, labels ...string) {
	w.buf.WriteString(typ)
	for _, l := range labels {
		w.buf.WriteByte(' ')
		w.buf.WriteString(Quote(l))
	}
	w.buf.WriteString(" {\n")
}

// End closes the innermost open block.
func (w *Writer) End() { w.buf.WriteString("}\n") }

// Blank writes an empty line (which also ends a run of aligned "=").
func (w *Writer) Blank() { w.buf.WriteByte('\n') }

// Bytes returns the text written, laid out canonically.
func (w *Writer) Bytes() []byte { return Format(w.buf.Bytes()) }
