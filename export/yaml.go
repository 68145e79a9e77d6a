package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// toYAML renders v (anything encoding/json marshals) as block-style YAML,
// keeping the order of struct fields. Every string is written as a JSON
// string, which YAML reads as a double-quoted scalar, so no value can be
// mistaken for a number, a bool or a null (YAML 1.1 "on", "no"…).
//
// This stands in for sigs.k8s.io/yaml, whose package initialisation would
// run before every childproof command; the tests read the output back
// with sigs.k8s.io/yaml, strictly.
func toYAML(v any) ([]byte, error) {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(&js)
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	writeNode(&b, n, 0, false)
	return []byte(b.String()), nil
}

// yamlNode is a JSON value with its object keys in document order.
type yamlNode struct {
	obj    bool
	arr    bool
	keys   []string
	items  []*yamlNode
	scalar string // the JSON text of a scalar
}

func readNode(dec *json.Decoder) (*yamlNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &yamlNode{obj: t == '{', arr: t == '['}
		for dec.More() {
			if n.obj {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, kt.(string))
			}
			c, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, c)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &yamlNode{scalar: yamlKey(t)}, nil
	case json.Number:
		return &yamlNode{scalar: t.String()}, nil
	case bool:
		return &yamlNode{scalar: fmt.Sprint(t)}, nil
	case nil:
		return &yamlNode{scalar: "null"}, nil
	}
	return nil, io.ErrUnexpectedEOF
}

// inline returns the node's text when it fits after "key: " or "- ".
func (n *yamlNode) inline() (string, bool) {
	switch {
	case n.obj && len(n.items) == 0:
		return "{}", true
	case n.arr && len(n.items) == 0:
		return "[]", true
	case !n.obj && !n.arr:
		return n.scalar, true
	}
	return "", false
}

// writeNode writes n at indent; first says the first line's indentation is
// already written (after "- ").
func writeNode(b *strings.Builder, n *yamlNode, indent int, first bool) {
	pad := strings.Repeat(" ", indent)
	for i, c := range n.items {
		if i > 0 || !first {
			b.WriteString(pad)
		}
		if n.obj {
			key := yamlKey(n.keys[i])
			explicit := len(key) > maxImplicitKey
			if explicit {
				// YAML reads a key of more than 1024 characters only
				// in the explicit form: "? key" then ": value".
				b.WriteString("? " + key + "\n" + pad + ":")
			} else {
				b.WriteString(key + ":")
			}
			if s, ok := c.inline(); ok {
				b.WriteString(" " + s + "\n")
				continue
			}
			b.WriteString("\n")
			if c.arr && !explicit {
				writeNode(b, c, indent, false)
			} else {
				writeNode(b, c, indent+2, false)
			}
			continue
		}
		b.WriteString("- ")
		if s, ok := c.inline(); ok {
			b.WriteString(s + "\n")
			continue
		}
		writeNode(b, c, indent+2, true)
	}
}

// maxImplicitKey is the longest key written in YAML's implicit form (the
// spec allows 1024 Unicode characters; bytes are counted, to be safe).
const maxImplicitKey = 1000

// yamlKey writes a key or a string plain when it cannot be read as
// anything but that string (a letter or / first, then letters, digits and
// _ . / -, not a YAML 1.1 bool or null), as a JSON string otherwise.
func yamlKey(k string) string {
	plain := k != ""
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '/' || i > 0 && ('0' <= c && c <= '9' || c == '_' || c == '.' || c == '-')) {
			plain = false
		}
	}
	switch strings.ToLower(k) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf":
		plain = false
	}
	if plain {
		return k
	}
	return jsonString(k)
}

// jsonString quotes s as a JSON string, without HTML escapes.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	q := strings.TrimSuffix(b.String(), "\n")
	// JSON leaves DEL, the C1 controls and a few non-characters raw; YAML
	// does not allow them raw, but reads the same \u escapes.
	var out strings.Builder
	for _, r := range q {
		if r == 0x7f || 0x80 <= r && r <= 0x9f || r == 0xfeff || r == 0xfffe || r == 0xffff {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}
