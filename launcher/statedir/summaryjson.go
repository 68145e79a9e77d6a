package statedir

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/childproof/childproof/verify"
)

// decodeSummary decodes a v2 record's summary line into sum as
// json.Unmarshal does. The line childproof writes (the keys of
// Summary, strings without escapes, integers) is read by a small
// scanner of its own: ps reads a thousand of them, and encoding/json's
// validation pass and reflection were a sixth of its CPU time. Anything
// else — an unknown or differently cased key, an escape, a float, bytes
// that are not UTF-8, trailing data — is left to json.Unmarshal, so the
// result and the errors are encoding/json's (FuzzDecodeSummary).
func decodeSummary(b []byte, sum *Summary) error {
	var s Summary
	if p := (sumScanner{b: b}); p.summary(&s) {
		*sum = s
		return nil
	}
	return json.Unmarshal(b, sum)
}

// sumScanner reads the JSON of one summary line; each method reports
// false for anything it does not take, and the caller falls back.
type sumScanner struct {
	b []byte
	i int
}

func (p *sumScanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space (0 at the end).
func (p *sumScanner) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *sumScanner) byte(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *sumScanner) word(w string) bool {
	p.ws()
	if len(p.b)-p.i >= len(w) && string(p.b[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

// rawString returns a string's bytes with its quotes: no escapes, no
// control characters, valid UTF-8.
func (p *sumScanner) rawString() ([]byte, bool) {
	if p.peek() != '"' {
		return nil, false
	}
	start := p.i
	for j := p.i + 1; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			raw := p.b[start : j+1]
			if !utf8.Valid(raw) {
				return nil, false
			}
			p.i = j + 1
			return raw, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

func (p *sumScanner) string(dst *string) bool {
	if p.word("null") {
		return true // json leaves a string as it is for null
	}
	raw, ok := p.rawString()
	if ok {
		*dst = string(raw[1 : len(raw)-1])
	}
	return ok
}

// number returns an integer's digits (an optional minus sign; no
// fraction, no exponent).
func (p *sumScanner) number() ([]byte, bool) {
	p.ws()
	start, j := p.i, p.i
	if j < len(p.b) && p.b[j] == '-' {
		j++
	}
	d := j
	for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
		j++
	}
	if j == d || p.b[d] == '0' && j-d > 1 {
		return nil, false
	}
	if j < len(p.b) && (p.b[j] == '.' || p.b[j] == 'e' || p.b[j] == 'E') {
		return nil, false
	}
	p.i = j
	return p.b[start:j], true
}

func (p *sumScanner) int(dst *int) bool {
	if p.word("null") {
		return true
	}
	n, ok := p.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseInt(string(n), 10, strconv.IntSize)
	if err != nil {
		return false
	}
	*dst = int(v)
	return true
}

func (p *sumScanner) uint64(dst *uint64) bool {
	if p.word("null") {
		return true
	}
	n, ok := p.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		return false
	}
	*dst = v
	return true
}

func (p *sumScanner) bool(dst *bool) bool {
	switch {
	case p.word("true"):
		*dst = true
	case p.word("false"):
		*dst = false
	case p.word("null"):
	default:
		return false
	}
	return true
}

func (p *sumScanner) time(dst *time.Time) bool {
	if p.word("null") {
		return true
	}
	raw, ok := p.rawString()
	return ok && dst.UnmarshalJSON(raw) == nil
}

// object reads {"key": value, …}, each value by field (false: a key it
// does not take).
func (p *sumScanner) object(field func(key []byte) bool) bool {
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return true
	}
	for {
		raw, ok := p.rawString()
		if !ok || !p.byte(':') || !field(raw[1:len(raw)-1]) {
			return false
		}
		if p.byte(',') {
			continue
		}
		return p.byte('}')
	}
}

func (p *sumScanner) fingerprint(f *verify.Fingerprint) bool {
	return p.object(func(key []byte) bool {
		switch string(key) { // no string made
		case "pid":
			return p.int(&f.Pid)
		case "start_time":
			return p.uint64(&f.StartTime)
		case "uid":
			return p.int(&f.UID)
		case "exe":
			return p.string(&f.Exe)
		case "comm":
			return p.string(&f.Comm)
		case "pidfs_inode":
			return p.uint64(&f.PidfsInode)
		}
		return false
	})
}

func (p *sumScanner) ports(dst *[]RecordPort) bool {
	if p.word("null") {
		*dst = nil
		return true
	}
	if !p.byte('[') {
		return false
	}
	out := []RecordPort{}
	if !p.byte(']') {
		for {
			var rp RecordPort
			if !p.object(func(key []byte) bool {
				switch string(key) { // no string made
				case "number":
					return p.int(&rp.Number)
				case "address":
					return p.string(&rp.Address)
				}
				return false
			}) {
				return false
			}
			out = append(out, rp)
			if p.byte(',') {
				continue
			}
			if !p.byte(']') {
				return false
			}
			break
		}
	}
	*dst = out
	return true
}

// nullable reads null (dst becomes nil) or a value parse reads into *dst,
// allocated when nil: the summary's optional fields.
func nullable[T any](p *sumScanner, dst **T, parse func(*T) bool) bool {
	if p.word("null") {
		*dst = nil
		return true
	}
	if *dst == nil {
		*dst = new(T)
	}
	return parse(*dst)
}

func (p *sumScanner) summary(s *Summary) bool {
	ok := p.object(func(key []byte) bool {
		switch string(key) { // no string made
		case "name":
			return p.string(&s.Name)
		case "spec_path":
			return p.string(&s.SpecPath)
		case "started":
			return p.time(&s.Started)
		case "detached":
			return p.bool(&s.Detached)
		case "worker":
			return p.word("null") || p.fingerprint(&s.Worker)
		case "cgroup":
			return p.string(&s.Cgroup)
		case "marker":
			return p.string(&s.Marker)
		case "ports":
			return p.ports(&s.Ports)
		case "log":
			return p.string(&s.Log)
		case "stopped":
			return nullable(p, &s.Stopped, p.time)
		case "pending":
			return p.bool(&s.Pending)
		case "restarts":
			return p.int(&s.Restarts)
		case "last_exit":
			return nullable(p, &s.LastExit, p.int)
		case "round":
			return p.int(&s.Round)
		case "workers":
			return p.int(&s.Workers)
		case "relay":
			return nullable(p, &s.Relay, p.fingerprint)
		case "root_pid":
			return p.int(&s.RootPid)
		}
		return false
	})
	p.ws()
	return ok && p.i == len(p.b)
}
