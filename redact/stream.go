package redact

import (
	"bytes"
	"io"
	"sort"
)

// maxCarry bounds the read buffer's growth in Stream: at most this much
// (plus the held-back carry) is masked and written in one go.
const maxCarry = 1 << 20

const pairScanFrom = 3

// Stream returns the masking sink of a byte stream: every secret value of
// at least MinLen bytes written to it is replaced by <NAME> before the
// bytes reach w, inside words too, and also when a value is cut across
// Write calls (a pipe read of 64 KiB, a line split): it holds back only
// the end of what was written that is the start of a value (at most the
// longest value's length minus one byte) until more comes or Close. Its output is
// exactly what Text's value replacement gives over the whole stream
// (leftmost match first, the longest value at a position). Values known
// only by a matcher are not recognised here (Writer adds that for whole
// words); the set is read when Stream is called. A reader that owns its
// buffers (the log relay) uses Masker, which Stream is built on.
func (s *Set) Stream(w io.Writer) io.WriteCloser {
	return &stream{w: w, m: s.Masker()}
}

// Masker is the masking sink without buffers of its own, for a reader
// that reads into its own (the log relay: no copy of what it read, no
// allocation per read). Mask decides what it can of a buffer and says how
// much of its end must wait for more. A Masker is not safe for concurrent
// use; it holds no state between calls but the set's tables, so one
// stream's buffers must be given in order.
type Masker struct {
	secrets []streamSecret // longest first: the first found at a position wins
	maxLen  int
	next    []int // per secret, its next match at or after the scan position (-1: none in buf)
	// pairs maps the first two bytes of a value to its index in cands
	// (0: none), the values starting so (longest first); nil: Index passes.
	pairs *[1 << 16]uint16
	cands [][]int
	// minLen is the shortest value's length; shift, for the two bytes
	// ending a window of minLen bytes, how far the window may move before
	// a value can start in it (a Wu-Manber table: 0, a value may start at
	// the window's first byte).
	minLen int
	shift  *[1 << 16]uint8
}

// Masker returns the set's masking sink without buffers (see Stream for
// what it masks). A nil or empty set's Masker passes every byte through.
func (s *Set) Masker() *Masker {
	m := &Masker{}
	if s == nil {
		return m
	}
	m.secrets = make([]streamSecret, 0, len(s.ordered))
	for _, sec := range s.ordered {
		m.secrets = append(m.secrets, streamSecret{value: []byte(sec.Value), ph: []byte(Placeholder(sec.Name))})
	}
	sort.SliceStable(m.secrets, func(i, j int) bool {
		a, b := m.secrets[i].value, m.secrets[j].value
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return bytes.Compare(a, b) < 0
	})
	for _, sec := range m.secrets {
		m.maxLen = max(m.maxLen, len(sec.value))
	}
	m.next = make([]int, len(m.secrets))
	if len(m.secrets) > pairScanFrom {
		m.pairs = new([1 << 16]uint16)
		m.cands = [][]int{nil}
		for k, sec := range m.secrets {
			p := uint16(sec.value[0])<<8 | uint16(sec.value[1])
			if m.pairs[p] == 0 {
				m.pairs[p] = uint16(len(m.cands))
				m.cands = append(m.cands, nil)
			}
			m.cands[m.pairs[p]] = append(m.cands[m.pairs[p]], k) // longest first, as secrets
		}
		m.shiftTable()
	}
	return m
}

// MaxCarry is the most Mask ever holds back: the longest value's length
// minus one (0: an empty set).
func (m *Masker) MaxCarry() int { return max(m.maxLen-1, 0) }

// Mask masks buf, the bytes held back by the last call (at its start)
// followed by new ones. It returns the masked bytes that are decided and
// how many bytes at buf's end are not (keep: the longest end of buf that
// is the start of a value, which may continue in the next buffer; 0 when
// final, nothing more coming). out is buf's own prefix when no value is
// in it (no copy), else the masked copy in *dst (grown as needed, kept
// for the next call). The caller passes buf[len(buf)-keep:] at the start
// of the next buffer.
func (m *Masker) Mask(dst *[]byte, buf []byte, final bool) (out []byte, keep int) {
	if len(m.secrets) == 0 {
		return buf, 0
	}
	if !final {
		keep = m.heldBack(buf)
	}
	safe := len(buf) - keep
	if safe <= 0 {
		return buf[:0], len(buf)
	}
	var stop int
	if m.pairs != nil {
		out, stop = m.maskPairs(dst, buf, safe)
	} else {
		out, stop = m.maskIndex(dst, buf, safe)
	}
	return out, len(buf) - stop
}

// pairScanFrom is the number of values above which Stream finds them in
// one pass over the bytes (a table of the values' first two bytes)
// instead of one bytes.Index pass per value: a log line shares a first
// byte with some value all the time, and ten Index passes restarted at
// every such byte were ~80 MB/s; one pass is one table look-up per byte.

type streamSecret struct {
	value, ph []byte
}

type stream struct {
	m   *Masker
	w   io.Writer
	buf []byte
	out []byte
	err error
}

// Write masks what it can decide of buf+p and passes it on. It reports
// len(p) once the bytes are accepted; an error of w is returned (and
// every later Write fails with it).
func (st *stream) Write(p []byte) (int, error) {
	if st.err != nil {
		return 0, st.err
	}
	if len(st.m.secrets) == 0 {
		if _, err := st.w.Write(p); err != nil {
			st.err = err
			return 0, err
		}
		return len(p), nil
	}
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), maxCarry)
		st.buf = append(st.buf, p[:n]...)
		p = p[n:]
		if err := st.flush(false); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// flush writes the masked bytes of buf that are decided and keeps the
// rest as the carry.
func (st *stream) flush(final bool) error {
	out, keep := st.m.Mask(&st.out, st.buf, final)
	if len(out) > 0 {
		if _, err := st.w.Write(out); err != nil {
			st.err = err
			return err
		}
	}
	st.buf = append(st.buf[:0], st.buf[len(st.buf)-keep:]...)
	return nil
}

// heldBack returns how many bytes at the end of buf must wait for more:
// the longest end of buf that is the start of a secret value (a value
// may continue in the next write). Everything else is passed on now, so
// a quiet worker's last line reaches the log without waiting.
func (m *Masker) heldBack(buf []byte) int {
	k := 0
	if len(buf) == 0 {
		return 0
	}
	last := buf[len(buf)-1]
	for _, sec := range m.secrets {
		v := sec.value
		for n := min(len(v)-1, len(buf)); n > k; n-- {
			if last == v[n-1] && bytes.HasSuffix(buf, v[:n]) {
				k = n
				break
			}
		}
	}
	return k
}

// maskIndex masks the bytes of buf before safe (a match that starts
// before safe lies wholly inside buf, so it is decided) by one
// bytes.Index pass per value; it returns them and where they end in buf
// (past safe when a match crosses it).
func (m *Masker) maskIndex(dst *[]byte, buf []byte, safe int) ([]byte, int) {
	for k, sec := range m.secrets {
		m.next[k] = bytes.Index(buf, sec.value)
	}
	out := (*dst)[:0]
	i := 0
	copied := false
	for i < safe {
		at, best := -1, -1
		for k, sec := range m.secrets {
			if m.next[k] >= 0 && m.next[k] < i {
				// Overlapped by the match just replaced: look again.
				if j := bytes.Index(buf[i:], sec.value); j >= 0 {
					m.next[k] = i + j
				} else {
					m.next[k] = -1
				}
			}
			if m.next[k] >= 0 && (at < 0 || m.next[k] < at) {
				at, best = m.next[k], k
			}
		}
		if at < 0 || at >= safe {
			if !copied {
				return buf[:safe], safe // nothing matched: buf as it is
			}
			out = append(out, buf[i:safe]...)
			i = safe
			break
		}
		out = append(out, buf[i:at]...)
		out = append(out, m.secrets[best].ph...)
		copied = true
		i = at + len(m.secrets[best].value)
	}
	*dst = out
	return out, i
}

// shiftTable fills st.shift from the values' first minLen bytes: for
// each pair of bytes, the least distance from where it ends in such a
// prefix to the prefix's end (minLen-1 when it ends in none).
func (m *Masker) shiftTable() {
	m.minLen = len(m.secrets[0].value)
	for _, sec := range m.secrets {
		m.minLen = min(m.minLen, len(sec.value))
	}
	w := min(m.minLen, 256)
	m.shift = new([1 << 16]uint8)
	for i := range m.shift {
		m.shift[i] = uint8(w - 1)
	}
	for _, sec := range m.secrets {
		v := sec.value
		for j := 1; j < w; j++ {
			p := uint16(v[j-1])<<8 | uint16(v[j])
			m.shift[p] = min(m.shift[p], uint8(w-1-j))
		}
	}
	m.minLen = w
}

// maskPairs is maskIndex in one pass (Wu-Manber): a window of minLen
// bytes moves along buf by the shift of its last two bytes; where the
// shift is 0 a value may start at the window's first byte, and the
// values whose first two bytes are there are compared, the longest
// first. Positions are tried in order, so the leftmost match wins. A
// match starting before safe lies wholly in buf (heldBack).
func (m *Masker) maskPairs(dst *[]byte, buf []byte, safe int) ([]byte, int) {
	out := (*dst)[:0]
	n, w := len(buf), m.minLen
	last := 0
	for end := w - 1; end < n; {
		if s := m.shift[uint16(buf[end-1])<<8|uint16(buf[end])]; s > 0 {
			end += int(s)
			continue
		}
		i := end - w + 1
		if i >= safe {
			break
		}
		matched := false
		if c := m.pairs[uint16(buf[i])<<8|uint16(buf[i+1])]; c != 0 {
			for _, k := range m.cands[c] {
				v := m.secrets[k].value
				if i+len(v) <= n && bytes.Equal(buf[i:i+len(v)], v) {
					out = append(out, buf[last:i]...)
					out = append(out, m.secrets[k].ph...)
					last, matched = i+len(v), true
					end = last + w - 1
					break
				}
			}
		}
		if !matched {
			end++
		}
	}
	stop := max(safe, last)
	if last == 0 {
		// Nothing matched: buf's bytes as they are, without a copy.
		return buf[:stop], stop
	}
	out = append(out, buf[last:stop]...)
	*dst = out
	return out, stop
}

// Close masks and writes the carry. It does not close w.
func (st *stream) Close() error {
	if st.err != nil {
		return st.err
	}
	if len(st.buf) == 0 {
		return nil
	}
	return st.flush(true)
}
