package proc

import "bytes"

// Var is one NAME=VALUE entry of an environment block. It is plain data,
// safe for concurrent use while no one changes it.
type Var struct {
	Name, Value string
}

// ParseEnviron splits a NUL-separated environment block. An entry without
// '=' is kept with an empty value; an empty entry is skipped. When a name
// repeats, every entry is returned in order (getenv takes the first).
func ParseEnviron(b []byte) []Var {
	out := make([]Var, 0, bytes.Count(b, []byte{0})+1)
	for len(b) > 0 {
		var e []byte
		if i := bytes.IndexByte(b, 0); i >= 0 {
			e, b = b[:i], b[i+1:]
		} else {
			e, b = b, nil
		}
		if len(e) == 0 {
			continue
		}
		// A name may not contain '=', but "=C:" style entries exist on
		// other systems; split at the first '=' after position 0.
		i := bytes.IndexByte(e[1:], '=')
		if i < 0 {
			out = append(out, Var{Name: string(e)})
			continue
		}
		out = append(out, Var{Name: string(e[:i+1]), Value: string(e[i+2:])})
	}
	return out
}

// Lookup returns the value getenv(3) would see for name: the first entry.
func Lookup(vars []Var, name string) (string, bool) {
	for _, v := range vars {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}
