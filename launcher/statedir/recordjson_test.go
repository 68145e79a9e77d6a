package statedir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/verify"
)

// TestMarshalSealedIsJSON: marshalSealed writes what json.Marshal
// writes for a Record, a Summary and a Round, byte for byte, or falls
// back to it where json.Marshal fails. Every field of those types and
// their parts is filled at random (absent, zero, empty or set; strings
// with escapes, HTML, invalid UTF-8, U+2028; times and floats at their
// edges), so a field added to them that marshalSealed does not write, or
// writes differently, fails it.
func TestMarshalSealedIsJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 12))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		for _, v := range []any{new(Record), new(Summary), new(Round)} {
			fillRandom(rng, reflect.ValueOf(v).Elem())
			want, werr := json.Marshal(v)
			got, gerr := marshalSealed(v)
			if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
				t.Fatalf("%d: %T: marshalSealed differs from json.Marshal (%v, %v):\n%s\n%s", i, v, gerr, werr, got, want)
			}
		}
	}
}

// TestMarshalSealedTakes: the values a start seals go through the hand
// encoder, not json.Marshal's fallback.
func TestMarshalSealedTakes(t *testing.T) {
	at := time.Date(2026, 12, 6, 8, 0, 0, 123456789, time.FixedZone("", 3600))
	code := 1
	for _, v := range []any{
		&Record{Name: "a", Started: at, Stopped: &at, LastExit: &code},
		&Summary{Name: "a", Started: at},
		&Round{N: 1, Started: at, End: &RoundEnd{At: at, UptimeSeconds: 1.5e-7}},
	} {
		w := &jw{}
		var ok bool
		switch v := v.(type) {
		case *Record:
			ok = w.record(v)
		case *Summary:
			ok = w.summary(v)
		case *Round:
			ok = w.round(v)
		}
		if !ok {
			t.Errorf("%T: the hand encoder refused it", v)
		}
	}
}

var randomStrings = []string{"", "a", "srv", "/usr/bin/mock-llm", "hmac-sha256:0123abcd", "K=v", "<b>&amp;</b>",
	"quote\"back\\slash", "\n\r\t\b\f\x00\x1f\x7f", "\xff\xfe", "a\u2028b\u2029c", "é日本\U0001F600", "\xe2\x80", "127.0.0.1:8080"}

var randomTimes = []time.Time{
	{},
	time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC),
	time.Date(2026, 12, 6, 8, 0, 0, 120000000, time.FixedZone("", -7*3600-1800)),
	time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", 14*3600)),
	time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)),
	time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 100*3600)),
	time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600+30)),
	time.Date(2026, 1, 1, 0, 0, 0, 1, time.Local),
}

var randomFloats = []float64{0, 1, -1, 0.5, 1e-7, 1e-6, 123456.789, 1e20, 1e21, 1.5e300, -2e-300, math.SmallestNonzeroFloat64,
	math.Inf(1), math.NaN(), 3.0000000000000004}

// fillRandom sets v (and everything under it) to a random value: a
// pointer, slice or map is nil, empty or filled.
func fillRandom(rng *rand.Rand, v reflect.Value) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(randomTimes[rng.IntN(len(randomTimes))]))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if rng.IntN(3) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fillRandom(rng, v.Elem())
	case reflect.Slice:
		switch rng.IntN(4) {
		case 0:
			v.SetZero()
			return
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		n := 1 + rng.IntN(3)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fillRandom(rng, v.Index(i))
		}
	case reflect.Map:
		switch rng.IntN(4) {
		case 0:
			v.SetZero()
			return
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
			return
		}
		m := reflect.MakeMap(v.Type())
		for range 1 + rng.IntN(4) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillRandom(rng, k)
			fillRandom(rng, e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(rng, v.Field(i))
			}
		}
	case reflect.String:
		v.SetString(randomStrings[rng.IntN(len(randomStrings))])
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt([]int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64}[rng.IntN(6)])
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		v.SetUint([]uint64{0, 1, 42, math.MaxUint64}[rng.IntN(4)])
	case reflect.Float64:
		v.SetFloat(randomFloats[rng.IntN(len(randomFloats))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	default:
		panic("fillRandom: no filler for " + v.Type().String())
	}
}

// BenchmarkMarshalSealed seals a record as a start writes it (a worker
// environment of 40 names), its summary and a finished round, through
// marshalSealed; BenchmarkMarshalSealedJSON through json.Marshal.
func BenchmarkMarshalSealed(b *testing.B)     { benchSealed(b, marshalSealed) }
func BenchmarkMarshalSealedJSON(b *testing.B) { benchSealed(b, json.Marshal) }

func benchSealed(b *testing.B, marshal func(any) ([]byte, error)) {
	at := time.Date(2026, 12, 6, 8, 0, 0, 123456789, time.Local)
	env := map[string]string{}
	for i := range 40 {
		env[fmt.Sprintf("NAME_%02d", i)] = "hmac-sha256:" + strings.Repeat("0123abcd", 8)
	}
	fp := verify.Fingerprint{Pid: 4242, StartTime: 123456789, UID: 1000, Exe: "/work/bin/mock-llm", Comm: "mock-llm", PidfsInode: 98765}
	r := &Record{Name: "mock", Argv: []string{"/work/bin/mock-llm", "--addr", "127.0.0.1:40123"}, Dir: "/tmp", Started: at,
		Root: fp, Worker: fp, Pgid: 4242, Cgroup: "/sys/fs/cgroup/user.slice/childproof-mock-0123abcd", Marker: "0123456789abcdef",
		Ports: []RecordPort{{Number: 40123, Address: "127.0.0.1"}}, Selector: &RecordSelector{Comm: "mock-llm", PortNames: []string{"http"}},
		Env: map[string]string{"MOCK_LLM_KEY": "hmac-sha256:" + strings.Repeat("0123abcd", 8)}, WorkerEnv: env, ExecEnv: env,
		ExecExe: "/work/bin/mock-llm", ExecArea: "7ffd0000-7ffd1000", Log: "/tmp/state/logs/mock.log", Round: 1}
	code := 0
	ro := &Round{N: 1, Name: "mock", Command: CommandStart, Started: at, Delta: RoundDelta{Set: []Override{}, Unset: []string{}},
		Overrides: []Override{}, Outcome: RoundVerified, Worker: &fp, WorkerEnv: env, Log: "/tmp/state/rounds/1.log",
		End: &RoundEnd{At: at, How: EndExited, ExitStatus: &code, StoppedBy: "SIGTERM (stop)", UptimeSeconds: 0.021734, Seen: SeenSupervisor, LastLines: 3}}
	sum := summarize(r)
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range []any{r, &sum, ro} {
			if _, err := marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
