package statedir

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/childproof/childproof/verify"
)

// marshalSealed is json.Marshal(v) for the values a start seals (a
// Record, its Summary, a Round), written by hand for those types: the
// same bytes, without encoding/json's reflection. Building its encoders
// for these types cost a process about 2 ms of CPU at its first start,
// and each encoding took about twice the CPU of the hand-written one
// (BenchmarkMarshalSealed, BenchmarkMarshalSealedJSON). A value the hand
// encoder does not take (a time outside RFC 3339's range, a float that
// is not finite: json.Marshal's errors) and any other type go to
// json.Marshal. TestMarshalSealedIsJSON fills every field of these types
// at random and compares, so a field added to them that is not written
// here fails it.
func marshalSealed(v any) ([]byte, error) {
	w := jwPool.Get().(*jw)
	w.b, w.bad = w.b[:0], false
	ok := false
	switch v := v.(type) {
	case *Record:
		ok = w.record(v)
	case *Round:
		ok = w.round(v)
	case *Summary:
		ok = w.summary(v)
	}
	var b []byte
	if ok {
		// A copy of its size, as json.Marshal returns: the buffer goes
		// back for the next.
		b = append([]byte(nil), w.b...)
	}
	if cap(w.b) <= 64<<10 {
		jwPool.Put(w)
	}
	if ok {
		return b, nil
	}
	return json.Marshal(v)
}

// jwPool holds the buffers marshalSealed writes into (a record sealed
// with a worker environment of 40 names is about 8 KiB).
var jwPool = sync.Pool{New: func() any { return &jw{b: make([]byte, 0, 4096)} }}

// jw appends JSON as json.Marshal writes it; bad is set by a value it
// does not take (the caller then falls back to json.Marshal).
type jw struct {
	b   []byte
	bad bool
	// first is set right after an opening brace: the next member needs
	// no comma.
	first bool
}

func (w *jw) open() { w.b = append(w.b, '{'); w.first = true }

func (w *jw) close() { w.b = append(w.b, '}'); w.first = false }

// key writes a member's name (plain ASCII, as the struct tags spell it).
func (w *jw) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) str(k, v string) { w.key(k); w.b = appendJSONString(w.b, v) }

func (w *jw) strOmit(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *jw) int(k string, v int64) { w.key(k); w.b = strconv.AppendInt(w.b, v, 10) }

func (w *jw) intOmit(k string, v int64) {
	if v != 0 {
		w.int(k, v)
	}
}

func (w *jw) uint(k string, v uint64) { w.key(k); w.b = strconv.AppendUint(w.b, v, 10) }

func (w *jw) bool(k string, v bool) { w.key(k); w.b = strconv.AppendBool(w.b, v) }

func (w *jw) boolOmit(k string, v bool) {
	if v {
		w.bool(k, v)
	}
}

// time writes t as time.Time.MarshalJSON does (RFC 3339 with nanoseconds);
// a time it refuses sets bad.
func (w *jw) time(k string, t time.Time) {
	w.key(k)
	n := len(w.b)
	w.b = append(w.b, '"')
	w.b = t.AppendFormat(w.b, time.RFC3339Nano)
	// MarshalJSON's checks (appendStrictRFC3339): a year of exactly four
	// digits, a zone hour below 24.
	s := w.b[n+1:]
	switch {
	case len(s) < 5 || s[4] != '-':
		w.bad = true
	case s[len(s)-1] != 'Z':
		z := s[len(s)-len("Z07:00"):]
		if z[1] < '0' || z[1] > '9' || z[2] < '0' || z[2] > '9' || (z[1]-'0')*10+(z[2]-'0') >= 24 || ('0' <= z[0] && z[0] <= '9') {
			w.bad = true
		}
	}
	w.b = append(w.b, '"')
}

// float writes f as json.Marshal writes a float64; NaN and the
// infinities set bad.
func (w *jw) float(k string, f float64) {
	w.key(k)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		w.bad = true
		return
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as json.Marshal does.
		n := len(w.b)
		if n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
			w.b[n-2] = w.b[n-1]
			w.b = w.b[:n-1]
		}
	}
}

func (w *jw) null() { w.b = append(w.b, "null"...) }

// strs writes a []string (nil: null).
func (w *jw) strs(k string, v []string) {
	w.key(k)
	if v == nil {
		w.null()
		return
	}
	w.b = append(w.b, '[')
	for i, s := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = appendJSONString(w.b, s)
	}
	w.b = append(w.b, ']')
}

func (w *jw) strsOmit(k string, v []string) {
	if len(v) > 0 {
		w.strs(k, v)
	}
}

// strMap writes a map[string]string with its keys sorted (nil: null).
func (w *jw) strMap(k string, m map[string]string) {
	w.key(k)
	if m == nil {
		w.null()
		return
	}
	var room [64]string
	keys := room[:0]
	for name := range m {
		keys = append(keys, name)
	}
	slices.Sort(keys)
	w.b = append(w.b, '{')
	for i, name := range keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = appendJSONString(w.b, name)
		w.b = append(w.b, ':')
		w.b = appendJSONString(w.b, m[name])
	}
	w.b = append(w.b, '}')
}

func (w *jw) strMapOmit(k string, m map[string]string) {
	if len(m) > 0 {
		w.strMap(k, m)
	}
}

// jsonList writes the elements of v with each (nil: null).
func jsonList[T any](w *jw, k string, v []T, each func(*T)) {
	w.key(k)
	if v == nil {
		w.null()
		return
	}
	w.b = append(w.b, '[')
	for i := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		each(&v[i])
	}
	w.b = append(w.b, ']')
}

func (w *jw) fingerprint(k string, f *verify.Fingerprint) {
	w.key(k)
	w.open()
	w.int("pid", int64(f.Pid))
	w.uint("start_time", f.StartTime)
	w.int("uid", int64(f.UID))
	w.str("exe", f.Exe)
	w.str("comm", f.Comm)
	if f.PidfsInode != 0 {
		w.uint("pidfs_inode", f.PidfsInode)
	}
	w.close()
}

func (w *jw) ports(k string, v []RecordPort) {
	if len(v) == 0 {
		return
	}
	jsonList(w, k, v, func(p *RecordPort) {
		w.open()
		w.int("number", int64(p.Number))
		w.str("address", p.Address)
		w.close()
	})
}

func (w *jw) intPtr(k string, v *int) {
	if v != nil {
		w.int(k, int64(*v))
	}
}

func (w *jw) record(r *Record) bool {
	w.open()
	w.str("name", r.Name)
	w.strOmit("spec_path", r.SpecPath)
	w.strOmit("spec_hash", r.SpecHash)
	w.strs("argv", r.Argv)
	w.str("dir", r.Dir)
	w.time("started", r.Started)
	w.bool("detached", r.Detached)
	w.intOmit("supervisor", int64(r.Supervisor))
	w.fingerprint("root", &r.Root)
	w.fingerprint("worker", &r.Worker)
	w.int("pgid", int64(r.Pgid))
	w.strOmit("cgroup", r.Cgroup)
	w.strOmit("marker", r.Marker)
	if r.Relay != nil {
		w.fingerprint("relay", r.Relay)
	}
	w.ports("ports", r.Ports)
	if s := r.Selector; s != nil {
		w.key("selector")
		w.open()
		w.strOmit("comm", s.Comm)
		w.strOmit("exe", s.Exe)
		w.intOmit("count", int64(s.Count))
		if len(s.Roles) > 0 {
			jsonList(w, "roles", s.Roles, func(ro *RecordRole) {
				w.open()
				w.str("name", ro.Name)
				w.strOmit("comm", ro.Comm)
				w.strOmit("exe", ro.Exe)
				w.intOmit("count", int64(ro.Count))
				w.strsOmit("ports", ro.Ports)
				w.close()
			})
		}
		w.strsOmit("port_names", s.PortNames)
		w.close()
	}
	w.strMap("env", r.Env)
	w.strMapOmit("given", r.Given)
	w.strMap("worker_env", r.WorkerEnv)
	w.strMapOmit("exec_env", r.ExecEnv)
	w.strOmit("exec_exe", r.ExecExe)
	w.strOmit("exec_area", r.ExecArea)
	if len(r.Ranks) > 0 {
		jsonList(w, "ranks", r.Ranks, func(rk *RecordRank) {
			w.open()
			w.strOmit("role", rk.Role)
			w.fingerprint("worker", &rk.Worker)
			w.strMap("worker_env", rk.WorkerEnv)
			w.strMapOmit("exec_env", rk.ExecEnv)
			w.strOmit("exec_exe", rk.ExecExe)
			w.strOmit("exec_area", rk.ExecArea)
			w.close()
		})
	}
	if len(r.Members) > 0 {
		jsonList(w, "members", r.Members, func(m *RecordMember) {
			w.open()
			w.int("pid", int64(m.Pid))
			w.uint("start_time", m.StartTime)
			w.strMap("exec_env", m.ExecEnv)
			w.strOmit("exec_exe", m.ExecExe)
			w.strOmit("exec_area", m.ExecArea)
			w.close()
		})
	}
	w.strOmit("diverged", r.Diverged)
	w.str("log", r.Log)
	w.strOmit("stop_signal", r.StopSignal)
	w.strOmit("stop_timeout", r.StopTimeout)
	w.boolOmit("oneshot", r.Oneshot)
	if len(r.Vars) > 0 {
		jsonList(w, "vars", r.Vars, func(v *RecordVar) {
			w.open()
			w.str("name", v.Name)
			w.strOmit("value", v.Value)
			w.strOmit("digest", v.Digest)
			w.close()
		})
	}
	if r.Stopped != nil {
		w.time("stopped", *r.Stopped)
	}
	w.boolOmit("pending", r.Pending)
	w.intOmit("restarts", int64(r.Restarts))
	w.intPtr("last_exit", r.LastExit)
	if len(r.Secrets) > 0 {
		jsonList(w, "secrets", r.Secrets, func(s *RecordSecret) {
			w.open()
			w.str("name", s.Name)
			w.str("digest", s.Digest)
			w.strsOmit("occurs", s.Occurs)
			w.close()
		})
	}
	w.intOmit("round", int64(r.Round))
	w.strOmit("mac", r.MAC)
	w.close()
	return !w.bad
}

func (w *jw) summary(s *Summary) bool {
	w.open()
	w.str("name", s.Name)
	w.strOmit("spec_path", s.SpecPath)
	w.time("started", s.Started)
	w.bool("detached", s.Detached)
	w.fingerprint("worker", &s.Worker)
	w.strOmit("cgroup", s.Cgroup)
	w.strOmit("marker", s.Marker)
	w.ports("ports", s.Ports)
	w.str("log", s.Log)
	if s.Stopped != nil {
		w.time("stopped", *s.Stopped)
	}
	w.boolOmit("pending", s.Pending)
	w.intOmit("restarts", int64(s.Restarts))
	w.intPtr("last_exit", s.LastExit)
	w.intOmit("round", int64(s.Round))
	w.intOmit("workers", int64(s.Workers))
	w.boolOmit("oneshot", s.Oneshot)
	if s.Relay != nil {
		w.fingerprint("relay", s.Relay)
	}
	w.intOmit("root_pid", int64(s.RootPid))
	w.strOmit("diverged", s.Diverged)
	w.close()
	return !w.bad
}

func (w *jw) overrides(k string, v []Override) {
	jsonList(w, k, v, func(o *Override) {
		w.open()
		w.str("name", o.Name)
		if o.Value != nil {
			w.str("value", *o.Value)
		}
		w.str("digest", o.Digest)
		w.boolOmit("secret", o.Secret)
		w.int("round", int64(o.Round))
		if e := o.EnvFile; e != nil {
			w.key("env_file")
			w.open()
			w.str("file", e.File)
			w.int("line", int64(e.Line))
			w.int("round", int64(e.Round))
			w.boolOmit("appended", e.Appended)
			w.strOmit("old_digest", e.OldDigest)
			if e.Old != nil {
				w.str("old", *e.Old)
			}
			w.int("offset", int64(e.Offset))
			w.int("new_len", int64(e.NewLen))
			w.str("after", e.After)
			w.strsOmit("after_lines", e.AfterLines)
			w.close()
		}
		w.close()
	})
}

func (w *jw) round(r *Round) bool {
	w.open()
	w.int("round", int64(r.N))
	w.str("name", r.Name)
	w.str("command", string(r.Command))
	w.time("started", r.Started)
	w.strOmit("spec_hash", r.SpecHash)
	w.intOmit("baseline", int64(r.Baseline))
	w.intOmit("replay_of", int64(r.ReplayOf))
	w.key("delta")
	w.open()
	w.overrides("set", r.Delta.Set)
	w.strs("unset", r.Delta.Unset)
	w.close()
	w.overrides("overrides", r.Overrides)
	w.str("outcome", string(r.Outcome))
	if len(r.Problems) > 0 {
		jsonList(w, "problems", r.Problems, func(k *verify.Kind) { w.b = appendJSONString(w.b, string(*k)) })
	}
	w.int("exit_code", int64(r.ExitCode))
	if len(r.Signals) > 0 {
		jsonList(w, "signals", r.Signals, func(s *verify.Signal) {
			w.open()
			w.str("signal", s.Signal)
			w.int("to_pid", int64(s.ToPid))
			w.int("from_pid", int64(s.FromPid))
			w.str("from_comm", s.FromComm)
			w.int("from_uid", int64(s.FromUID))
			w.int("after_ms", s.AfterMs)
			w.strOmit("kernel", string(s.Kernel))
			w.close()
		})
	}
	if r.Worker != nil {
		w.fingerprint("worker", r.Worker)
	}
	w.strMapOmit("worker_env", r.WorkerEnv)
	w.strsOmit("volatile", r.Volatile)
	w.strOmit("log", r.Log)
	if e := r.End; e != nil {
		w.key("end")
		w.open()
		w.time("at", e.At)
		w.str("how", string(e.How))
		w.intPtr("exit_status", e.ExitStatus)
		w.strOmit("signal", e.Signal)
		w.strOmit("stopped_by", e.StoppedBy)
		w.float("uptime_seconds", e.UptimeSeconds)
		w.boolOmit("uptime_at_most", e.UptimeAtMost)
		w.str("seen", string(e.Seen))
		w.int("last_lines", int64(e.LastLines))
		w.strOmit("tail_digest", e.TailDigest)
		w.strOmit("log", e.Log)
		w.close()
	}
	w.strOmit("mac", r.MAC)
	w.close()
	return !w.bad
}

// jsonPlain marks the ASCII bytes a JSON string holds as they are (json's
// htmlSafeSet): not a control byte, a quote, a backslash, <, > or &.
var jsonPlain = [utf8.RuneSelf]bool{
	' ': true, '!': true, '#': true, '$': true, '%': true, '\'': true, '(': true, ')': true, '*': true, '+': true, ',': true,
	'-': true, '.': true, '/': true, '0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true,
	'8': true, '9': true, ':': true, ';': true, '=': true, '?': true, '@': true, 'A': true, 'B': true, 'C': true, 'D': true,
	'E': true, 'F': true, 'G': true, 'H': true, 'I': true, 'J': true, 'K': true, 'L': true, 'M': true, 'N': true, 'O': true,
	'P': true, 'Q': true, 'R': true, 'S': true, 'T': true, 'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true,
	'[': true, ']': true, '^': true, '_': true, '`': true, 'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true,
	'g': true, 'h': true, 'i': true, 'j': true, 'k': true, 'l': true, 'm': true, 'n': true, 'o': true, 'p': true, 'q': true,
	'r': true, 's': true, 't': true, 'u': true, 'v': true, 'w': true, 'x': true, 'y': true, 'z': true, '{': true, '|': true,
	'}': true, '~': true, '\u007f': true,
}

// appendJSONString appends s as a JSON string as json.Marshal writes it:
// HTML's <, > and & escaped, each byte that is not UTF-8 as \ufffd, and
// U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
