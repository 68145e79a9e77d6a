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
// words); the set is read when Stream is called.
func (s *Set) Stream(w io.Writer) io.WriteCloser {
	st := &stream{w: w}
	if s != nil {
		st.secrets = make([]streamSecret, 0, len(s.ordered))
		for _, sec := range s.ordered {
			st.secrets = append(st.secrets, streamSecret{value: []byte(sec.Value), ph: []byte(Placeholder(sec.Name))})
		}
		sort.SliceStable(st.secrets, func(i, j int) bool {
			a, b := st.secrets[i].value, st.secrets[j].value
			if len(a) != len(b) {
				return len(a) > len(b)
			}
			return bytes.Compare(a, b) < 0
		})
		for _, sec := range st.secrets {
			st.maxLen = max(st.maxLen, len(sec.value))
		}
		st.next = make([]int, len(st.secrets))
		if len(st.secrets) > pairScanFrom {
			st.pairs = new([1 << 16]uint16)
			st.cands = [][]int{nil}
			for k, sec := range st.secrets {
				p := uint16(sec.value[0])<<8 | uint16(sec.value[1])
				if st.pairs[p] == 0 {
					st.pairs[p] = uint16(len(st.cands))
					st.cands = append(st.cands, nil)
				}
				st.cands[st.pairs[p]] = append(st.cands[st.pairs[p]], k) // longest first, as secrets
			}
			st.shiftTable()
		}
	}
	return st
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
	w       io.Writer
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
	buf    []byte
	out    []byte
	err    error
}

// Write masks what it can decide of buf+p and passes it on. It reports
// len(p) once the bytes are accepted; an error of w is returned (and
// every later Write fails with it).
func (st *stream) Write(p []byte) (int, error) {
	if st.err != nil {
		return 0, st.err
	}
	if len(st.secrets) == 0 {
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
		if err := st.flush(len(st.buf) - st.heldBack()); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// heldBack returns how many bytes at the end of buf must wait for more:
// the longest end of buf that is the start of a secret value (a value
// may continue in the next write). Everything else is passed on now, so
// a quiet worker's last line reaches the log without waiting.
func (st *stream) heldBack() int {
	k := 0
	for _, sec := range st.secrets {
		v := sec.value
		for n := min(len(v)-1, len(st.buf)); n > k; n-- {
			if st.buf[len(st.buf)-1] == v[n-1] && bytes.HasSuffix(st.buf, v[:n]) {
				k = n
				break
			}
		}
	}
	return k
}

// flush writes the masked bytes of buf before safe (a match that starts
// before safe lies wholly inside buf, so it is decided) and keeps the
// rest as the carry.
func (st *stream) flush(safe int) error {
	if safe <= 0 {
		return nil
	}
	if st.pairs != nil {
		return st.flushPairs(safe)
	}
	for k, sec := range st.secrets {
		st.next[k] = bytes.Index(st.buf, sec.value)
	}
	out := st.out[:0]
	i := 0
	for i < safe {
		m, best := -1, -1
		for k, sec := range st.secrets {
			if st.next[k] >= 0 && st.next[k] < i {
				// Overlapped by the match just replaced: look again.
				if j := bytes.Index(st.buf[i:], sec.value); j >= 0 {
					st.next[k] = i + j
				} else {
					st.next[k] = -1
				}
			}
			if st.next[k] >= 0 && (m < 0 || st.next[k] < m) {
				m, best = st.next[k], k
			}
		}
		if m < 0 || m >= safe {
			out = append(out, st.buf[i:safe]...)
			i = safe
			break
		}
		out = append(out, st.buf[i:m]...)
		out = append(out, st.secrets[best].ph...)
		i = m + len(st.secrets[best].value)
	}
	st.out = out
	if _, err := st.w.Write(out); err != nil {
		st.err = err
		return err
	}
	st.buf = append(st.buf[:0], st.buf[i:]...)
	return nil
}

// shiftTable fills st.shift from the values' first minLen bytes: for
// each pair of bytes, the least distance from where it ends in such a
// prefix to the prefix's end (minLen-1 when it ends in none).
func (st *stream) shiftTable() {
	st.minLen = len(st.secrets[0].value)
	for _, sec := range st.secrets {
		st.minLen = min(st.minLen, len(sec.value))
	}
	m := min(st.minLen, 256)
	st.shift = new([1 << 16]uint8)
	for i := range st.shift {
		st.shift[i] = uint8(m - 1)
	}
	for _, sec := range st.secrets {
		v := sec.value
		for j := 1; j < m; j++ {
			p := uint16(v[j-1])<<8 | uint16(v[j])
			st.shift[p] = min(st.shift[p], uint8(m-1-j))
		}
	}
	st.minLen = m
}

// flushPairs is flush in one pass (Wu-Manber): a window of minLen bytes
// moves along buf by the shift of its last two bytes; where the shift is
// 0 a value may start at the window's first byte, and the values whose
// first two bytes are there are compared, the longest first. Positions
// are tried in order, so the leftmost match wins. A match starting before
// safe lies wholly in buf (heldBack).
func (st *stream) flushPairs(safe int) error {
	buf, out := st.buf, st.out[:0]
	n, m := len(buf), st.minLen
	last := 0
	for end := m - 1; end < n; {
		if s := st.shift[uint16(buf[end-1])<<8|uint16(buf[end])]; s > 0 {
			end += int(s)
			continue
		}
		i := end - m + 1
		if i >= safe {
			break
		}
		matched := false
		if c := st.pairs[uint16(buf[i])<<8|uint16(buf[i+1])]; c != 0 {
			for _, k := range st.cands[c] {
				v := st.secrets[k].value
				if i+len(v) <= n && bytes.Equal(buf[i:i+len(v)], v) {
					out = append(out, buf[last:i]...)
					out = append(out, st.secrets[k].ph...)
					last, matched = i+len(v), true
					end = last + m - 1
					break
				}
			}
		}
		if !matched {
			end++
		}
	}
	stop := max(safe, last)
	var err error
	if last == 0 {
		// Nothing matched: buf's bytes as they are, without a copy.
		_, err = st.w.Write(buf[:stop])
	} else {
		out = append(out, buf[last:stop]...)
		_, err = st.w.Write(out)
	}
	st.out = out
	if err != nil {
		st.err = err
		return err
	}
	st.buf = append(st.buf[:0], st.buf[stop:]...)
	return nil
}

// Close masks and writes the carry. It does not close w.
func (st *stream) Close() error {
	if st.err != nil {
		return st.err
	}
	if len(st.buf) == 0 {
		return nil
	}
	return st.flush(len(st.buf))
}
