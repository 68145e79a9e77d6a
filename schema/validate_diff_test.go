package schema

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// diffLaunches is how many generated launches TestValidateDifferential
// checks: 200,000 in a plain `go test` (about 40 s of CPU, spread over
// the cores in chunks; `make test` runs it so); with -short the first
// 20,000 of the same sequence (the chunks' seeds are fixed); under the
// race detector, whose instrumentation makes each HCL parse about ten
// times slower, the first 5,000, so that `go test -race ./...` stays
// within seconds for this test: there it checks that the engine is safe
// to share, the plain run that it says the same. DIFF_LAUNCHES sets
// another count.
func diffLaunches(t *testing.T) int {
	if s := os.Getenv("DIFF_LAUNCHES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("DIFF_LAUNCHES=%q: want a positive count", s)
		}
		return n
	}
	switch {
	case raceDetector:
		return 5_000
	case testing.Short():
		return 20_000
	}
	return 200_000
}

// diffChunk is how many launches one parallel subtest generates, from
// its own seed: launch i of chunk c is the same on every run. Small
// enough that the race detector's 5,000 are two chunks that run at once
// and share the engine (one validator, built once).
const diffChunk = 2_500

// diffSeed fixes the generated sequence.
const diffSeed = 0x6368696c6470726f // "childpro"

// TestValidateDifferential holds the production constraint engine
// (validateLaunch) to the oracle (oracleValidateLaunch, the hand engine
// it replaced) on generated launches, valid and invalid, over every
// field, nested block and constraint. Each launch is checked twice:
//
//   - As a raw struct (what (*Launch).Validate checks), with random parts
//     hidden as if from env(), including values HCL cannot spell (invalid
//     UTF-8): the problems' fields, summaries, details and order.
//   - As spec text, loaded as Parse does; each launch block is decoded
//     again as the load decoded it, and both engines must give the same
//     problems for the raw launch the loader built. Values come as
//     literals, from env() (hidden in diagnostics) or, with
//     LaunchesNothing, from an unset env() (not checked). The loader turns
//     problems into diagnostics by their field alone, so the same problems
//     give the same diagnostics; for every tenth spec the diagnostics of
//     each engine's problems are also compared whole (severity, summary,
//     detail, subject range, order), and the load's with Parse's.
func TestValidateDifferential(t *testing.T) {
	n := diffLaunches(t)
	path := filepath.Join(t.TempDir(), "s.hcl")
	var mu sync.Mutex
	counts := map[string]int{}
	problems := map[int]int{} // launches by number of problems
	t.Run("chunks", func(t *testing.T) {
		for c := 0; c*diffChunk < n; c++ {
			t.Run(strconv.Itoa(c), func(t *testing.T) {
				t.Parallel()
				g := newLaunchGen(diffSeed + uint64(c))
				failures := 0
				fail := func(i int, format string, args ...any) {
					t.Helper()
					t.Errorf("chunk %d, launch %d: "+format, append([]any{c, i}, args...)...)
					if failures++; failures >= 5 {
						t.Fatal("stopping after 5 differences")
					}
				}
				myCounts, myProblems := map[string]int{}, map[int]int{}
				for i := range min(diffChunk, n-c*diffChunk) {
					raw := g.launch()
					hide := g.hider(&raw)
					want := problemViews(oracleValidateLaunch(&raw, hide))
					got := problemViews(validateLaunch(&raw, hide))
					if !slices.Equal(want, got) {
						fail(i, "raw launch %#v: problems differ (-oracle +validator):\n%s", raw, cmp.Diff(want, got))
					}
					for _, p := range want {
						myCounts[p.Summary]++
					}
					myProblems[min(len(want), 3)]++
					src, opts := g.spec(&raw)
					if diff := loadBoth(src, path, opts, i%10 == 0); diff != "" {
						fail(i, "spec\n%s\n%s", src, diff)
					}
				}
				mu.Lock()
				defer mu.Unlock()
				for k, v := range myCounts {
					counts[k] += v
				}
				for k, v := range myProblems {
					problems[k] += v
				}
			})
		}
	})
	// The generator must reach every constraint, or the comparison proves
	// little: each summary the engine can produce must have occurred.
	for _, s := range []string{
		"Missing command or dispatch", "Conflicting command and dispatch", "Conflicting worker selectors",
		"Empty command", "Empty dispatch", "Empty program", "Invalid value", "Invalid variable name",
		"Invalid inherit entry", "Invalid launch name", "Invalid port name", "Unknown wrapper rule",
		"Invalid attempts", "Invalid on_stale", "Worker comm too long", "Relative worker exe",
		"Invalid port number", "Invalid address", "Bind to all interfaces", "Invalid readiness path",
		"Invalid duration", "Invalid restart policy", "Invalid restart max", "Invalid slurm partition", "Invalid slurm nodes", "Invalid slurm ntasks_per_node",
		"Invalid slurm gres", "Invalid slurm time",
	} {
		if counts[s] == 0 {
			t.Errorf("no generated launch produced %q", s)
		}
	}
	t.Logf("%d launches; by number of problems (3: three or more): %v; problems by summary: %v", n, problems, counts)
}

// loadBoth parses src once and loads it as Parse does; then it decodes
// each launch block again as that load did and checks the raw launch the
// loader built with the oracle and with the production engine, noting
// where their problems differ; with whole, it also compares the
// diagnostics each engine's problems give at the launch's parts, and the
// load's with Parse's. It returns the differences, "" for none.
func loadBoth(src []byte, path string, opts LoadOptions, whole bool) string {
	if d := checkText(src, path); d.HasErrors() {
		return ""
	}
	f, d := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if d.HasErrors() {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err.Error()
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var out strings.Builder
	l := &loader{path: path, abs: abs, dir: filepath.Dir(abs), lookup: lookup, opts: opts}
	l.load(f.Body)
	got := diagViews(slices.Concat(d, maskDiags(sortDiags(l.diags), l.secrets)))
	content, _ := f.Body.Content(rootSchema)
	var blocks []*hcl.Block
	for _, b := range content.Blocks {
		if b.Type == "launch" {
			blocks = append(blocks, b)
		}
	}
	strict := strictLaunches(blocks, opts.Launches, l.estimate)
	seen := map[string]bool{}
	for _, b := range blocks {
		name := b.Labels[0]
		if seen[name] {
			continue // the load reported the duplicate and skipped it
		}
		seen[name] = true
		// The loader as the load left it (its evaluation context, the
		// sensitive and unknown ranges), set for this launch as load sets it.
		check := func(engine func(*rawLaunch, func(string) (hcl.Range, bool)) []fieldProblem) ([]fieldProblem, []diagView) {
			dl := *l
			dl.diags = nil
			dl.lenient = opts.LaunchesNothing || strict != nil && !strict[name]
			dl.programsOptional = strict != nil && !strict[name]
			s := dl.decodeLaunch(b)
			if s == nil {
				return nil, nil
			}
			ps := engine(&s.raw, func(ns string) (hcl.Range, bool) { return dl.hidden(s, ns) })
			dl.checkFields(s, ps)
			return ps, diagViews(sortDiags(dl.diags))
		}
		want, wantDiags := check(oracleValidateLaunch)
		have, haveDiags := check(validateLaunch)
		if slices.ContainsFunc(have, func(p fieldProblem) bool { return !oracleKnows(p.ns) }) {
			// The oracle is frozen: it never checked this field, so it
			// cannot judge this launch (TestValidateGoDifferential and
			// the shape tests hold the validator to the hand checks there).
			continue
		}
		if w, g := problemViews(want), problemViews(have); !slices.Equal(w, g) {
			fmt.Fprintf(&out, "problems differ (-oracle +validator):\n%s", cmp.Diff(w, g))
		}
		if whole && !slices.Equal(wantDiags, haveDiags) {
			fmt.Fprintf(&out, "diagnostics differ (-oracle +validator):\n%s", cmp.Diff(wantDiags, haveDiags))
		}
	}
	if whole {
		_, _, diags := Parse(src, path, opts)
		if parsed := diagViews(diags); !slices.Equal(parsed, got) {
			fmt.Fprintf(&out, "loadBoth differs from Parse (-Parse +loadBoth):\n%s", cmp.Diff(parsed, got))
		}
	}
	return out.String()
}

// oracleKnows reports whether the frozen oracle checks the field at ns.
// Fields added to the spec language after it was frozen (worker roles,
// worker.count, volatile, user, group, stop) are the validator's alone.
func oracleKnows(ns string) bool {
	for _, p := range []string{"worker[", "worker.count", "volatile", "user", "group", "stop."} {
		if strings.HasPrefix(ns, p) {
			return false
		}
	}
	return true
}

// problemView is a fieldProblem with exported fields, for cmp.
type problemView struct{ NS, Summary, Detail string }

func problemViews(ps []fieldProblem) []problemView {
	var out []problemView
	for _, p := range ps {
		out = append(out, problemView{p.ns, p.summary, p.detail})
	}
	return out
}

// diagView is what a user sees of a diagnostic.
type diagView struct {
	Severity        hcl.DiagnosticSeverity
	Summary, Detail string
	Subject         hcl.Range // the zero Range for none
}

func diagViews(ds hcl.Diagnostics) []diagView {
	var out []diagView
	for _, d := range ds {
		v := diagView{Severity: d.Severity, Summary: d.Summary, Detail: d.Detail}
		if d.Subject != nil {
			v.Subject = *d.Subject
		}
		out = append(out, v)
	}
	return out
}

// launchGen generates raw launches and their spec text from a fixed seed.
type launchGen struct {
	r *rand.Rand
}

func newLaunchGen(seed uint64) *launchGen {
	return &launchGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *launchGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *launchGen) pick(pool []string) string { return pool[g.r.IntN(len(pool))] }

// A pool holds the values a field draws from: valid ones, and invalid
// ones and edges.
type pool struct{ ok, bad []string }

var (
	poolEnvNames = pool{
		[]string{"A", "PATH", "_x1", "HF_HUB_ENABLE_HF_TRANSFER", "a", "Z9", "__", "K"},
		[]string{"", "1X", "a-b", "A B", "é", "A\x00", "x.y", "$A", "A=B", "CUDA_*", "ÅB", strings.Repeat("N", 300) + "-"}}
	poolLaunchNames = pool{
		[]string{"a", "mock-llm", "a.b_c-d", "0", "Z", strings.Repeat("x", 64), "http", "p-2"},
		[]string{strings.Repeat("y", 65), "-a", "_a", ".a", "", "é", "a b", "a\x00", "a/b", "a:b", "a\tb"}}
	poolArgs = pool{
		[]string{"./srv", "/bin/true", "--addr", "127.0.0.1:8080", "", "-", "é", "with space", "日本語", "🙂", "a\"b", "a\\b", "${x}", "%{if}"},
		[]string{"", "a\x00b", "\x00", "\x00\x00"}}
	poolPaths = pool{
		[]string{".", "./x", "/usr/bin/x", "rel/x", "/", "//", "~/x", "/é", "C:\\x"},
		[]string{"", "/a\x00", "\x00", "x\x00"}}
	poolComms = pool{
		[]string{"srv", "mock-llm", "123456789012345", strings.Repeat("é", 7), "a b", "🙂🙂🙂"},
		[]string{"1234567890123456", strings.Repeat("é", 8), "a\x00", "\x00", "🙂🙂🙂🙂", strings.Repeat("x", 15) + "\x00"}}
	poolWrappers = pool{
		[]string{"login-shell", "interactive-shell", "env-reset"},
		[]string{"nohup", "", "LOGIN-SHELL", "login-shell ", "env_reset", "\x00"}}
	poolInherit = pool{
		[]string{"PATH", "HOME", "CUDA_*", "*", "NCCL_*", "*X", "A*B*", "LANG"},
		[]string{"[", "a-b*", "", "?", "A?", "[AB]", "1*", "é*", "A\x00", "**", "A B"}}
	poolOnStale   = pool{[]string{"replace", "fail"}, []string{"Replace", "x", " fail", "\x00", ""}}
	poolAddresses = pool{
		[]string{"127.0.0.1", "::1", "10.0.0.1", "0.0.0.0", "::", "::ffff:0.0.0.0", "0:0:0:0:0:0:0:0"},
		[]string{"", "[::]", "fe80::1%eth0", "::%eth0", "localhost", "1.2.3", "0.0.0.0 ", "256.1.1.1", "1.2.3.4\x00", "é"}}
	poolHTTP = pool{
		[]string{"/", "/healthz", "//x", "/~!@#$%^&*()", "/v1/models?x=1"},
		[]string{"healthz", "/a b", "/é", "/\x01", "/a\x00", "/\x7f", " /", "/\t", "http://x/", ""}}
	poolDurations = pool{
		[]string{"10s", "1m30s", "500ms", "1h", "1µs", "1us", "+5s", ".5s", "1ns", "1h-1m"},
		[]string{"", "0s", "0", "-1s", "x", "10", "9999999999h", "5 s", "-0s", "1e3s", "s", "\x00", "-1h1m"}}
	poolPolicies = pool{[]string{"never", "on-failure", "always"}, []string{"", "Always", "x", "on_failure", "never\x00"}}
	poolSlurm    = pool{[]string{"gpu", "gpu:1", "x,y", "~", "a-b"}, []string{"a b", "é", "a\x00", "\t", " ", "a\x7f", ""}}
	poolTimes    = pool{
		[]string{"10", "10:00", "1:00:00", "1-00", "1-00:00", "1-00:00:00", "123456789", "01"},
		[]string{"", "1-", "-1", "a", "1:2:3:4", "1234567890", "1-2-3", "1-2:3:4:5", ":", "1:", "1-:1", " 1", "1\x00"}}
	poolInts = []int{-2147483648, -1, 0, 1, 2, 3, 99, 100, 101, 999, 1000, 1001, 8080, 65535, 65536, 2147483647}
	// garbage is the alphabet of random strings: every character class
	// the predicates distinguish, control characters, multi-byte runes
	// and a byte that is not UTF-8.
	garbage = []string{"a", "Z", "0", "9", "_", "-", ".", "/", ":", "*", "?", "[", "]", " ", "\t", "\x00",
		"\x01", "\x7f", "é", "日", "🙂", "\u200b", "\u0301", "\xff", "$", "{", "%", "\"", "\\", ","}
)

// str is a value for a field drawn from p: mostly valid, sometimes
// invalid, sometimes a value with a random character inserted, sometimes
// random garbage.
func (g *launchGen) str(p pool) string {
	switch x := g.r.Float64(); {
	case x < 0.8:
		return g.pick(p.ok)
	case x < 0.9:
		return g.pick(p.bad)
	case x < 0.96:
		s := g.pick(p.ok)
		i := g.r.IntN(len(s) + 1)
		return s[:i] + g.pick(garbage) + s[i:]
	default:
		var b strings.Builder
		for range g.r.IntN(8) {
			b.WriteString(g.pick(garbage))
		}
		return b.String()
	}
}

// list is nil (absent), empty or up to three elements.
func (g *launchGen) list(prob float64, p pool) []string {
	switch x := g.r.Float64(); {
	case x >= prob:
		return nil
	case x < prob*0.1:
		return []string{}
	default:
		out := make([]string, 1+g.r.IntN(3))
		for i := range out {
			out[i] = g.str(p)
		}
		return out
	}
}

func (g *launchGen) optStr(prob float64, p pool) string {
	if g.chance(prob) {
		return g.str(p)
	}
	return ""
}

func (g *launchGen) integer(lo, hi int) int {
	switch x := g.r.Float64(); {
	case x < 0.7:
		return lo + g.r.IntN(min(hi-lo+1, 100))
	case x < 0.95:
		return poolInts[g.r.IntN(len(poolInts))]
	default:
		return g.r.IntN(200_000) - 100_000
	}
}

func (g *launchGen) optInt(prob float64, lo, hi int) *int {
	if !g.chance(prob) {
		return nil
	}
	v := g.integer(lo, hi)
	return &v
}

// launch generates one raw launch: each field and block present with
// some probability, each value mostly valid, so that launches with no,
// one and several problems are all common.
func (g *launchGen) launch() rawLaunch {
	r := rawLaunch{Name: g.str(poolLaunchNames)}
	argv := func() []string {
		if v := g.list(1, poolArgs); v != nil {
			return v
		}
		return []string{g.str(poolArgs)}
	}
	switch x := g.r.Float64(); {
	case x < 0.45:
		r.Command = argv()
	case x < 0.9:
		r.Dispatch = argv()
	case x < 0.95:
		r.Command, r.Dispatch = argv(), argv()
	}
	r.Dir = g.optStr(0.1, poolPaths)
	r.EnvFile = g.optStr(0.1, poolPaths)
	r.Inherit = g.list(0.2, poolInherit)
	if g.chance(0.3) {
		r.Env = map[string]string{}
		for range g.r.IntN(4) {
			r.Env[g.str(poolEnvNames)] = g.str(poolArgs)
		}
	}
	r.Require = g.list(0.2, poolEnvNames)
	r.ForbidWrappers = g.list(0.15, poolWrappers)
	r.Secret = g.list(0.15, poolEnvNames)
	r.Attempts = g.optInt(0.15, 1, 100)
	r.OnStale = g.optStr(0.15, poolOnStale)
	if g.chance(0.2) {
		r.Worker = &rawWorker{Comm: g.optStr(0.6, poolComms), Exe: g.optStr(0.5, poolPaths)}
	}
	for range g.r.IntN(3) {
		p := rawPort{Name: g.str(poolLaunchNames), Number: g.integer(1, 65535)}
		if g.chance(0.5) {
			p.Address = g.str(poolAddresses)
		}
		p.AllowAllInterfaces = g.chance(0.3)
		r.Ports = append(r.Ports, p)
	}
	if g.chance(0.2) {
		r.Ready = &rawReady{HTTP: g.optStr(0.6, poolHTTP), Timeout: g.optStr(0.6, poolDurations)}
	}
	if g.chance(0.15) {
		r.Restart = &rawRestart{Policy: g.optStr(0.95, poolPolicies), Max: g.optInt(0.5, 1, 1000), Backoff: g.optStr(0.5, poolDurations)}
	}
	if g.chance(0.15) {
		r.Slurm = &rawSlurm{Partition: g.optStr(0.6, poolSlurm), Gres: g.optStr(0.6, poolSlurm), Time: g.optStr(0.6, poolTimes), Nodes: g.optInt(0.3, 1, 4096), TasksPerNode: g.optInt(0.3, 1, 1024)}
	}
	return r
}

// hider returns nil (nothing hidden, as for a Launch built in Go) or a
// hide function that hides a random set of r's parts, and what they
// belong to, as the loader does for values from env() or file().
func (g *launchGen) hider(r *rawLaunch) func(string) (hcl.Range, bool) {
	if g.chance(0.5) {
		return nil
	}
	var parts []string
	add := func(name string, n int) {
		parts = append(parts, name)
		for i := range n {
			parts = append(parts, ns(name, i))
		}
	}
	add("name", 0)
	add("command", len(r.Command))
	add("dispatch", len(r.Dispatch))
	add("dir", 0)
	add("env_file", 0)
	add("inherit", len(r.Inherit))
	add("require", len(r.Require))
	add("forbid_wrappers", len(r.ForbidWrappers))
	add("secret", len(r.Secret))
	add("attempts", 0)
	add("on_stale", 0)
	parts = append(parts, "env")
	for k := range r.Env {
		parts = append(parts, "env["+k+"]")
	}
	parts = append(parts, "worker.comm", "worker.exe", "ready.http", "ready.timeout", "restart.policy",
		"restart.max", "restart.backoff", "slurm.partition", "slurm.gres", "slurm.time")
	for i := range r.Ports {
		for _, f := range []string{"name", "number", "address"} {
			parts = append(parts, ns("port", i, f))
		}
	}
	hidden := map[string]hcl.Range{}
	for i, p := range parts {
		if g.chance(0.15) {
			hidden[p] = hcl.Range{Filename: "s.hcl", Start: hcl.Pos{Line: i + 1, Column: 3, Byte: 10 * i}, End: hcl.Pos{Line: i + 1, Column: 9, Byte: 10*i + 6}}
		}
	}
	return func(ns string) (hcl.Range, bool) {
		for p := range lineage(ns) {
			if r, ok := hidden[p]; ok {
				return r, true
			}
		}
		return hcl.Range{}, false
	}
}

// spec renders r as spec text. Each string value is written as a
// literal, or comes from env() (set in the returned options' LookupEnv,
// and always for a value that is not UTF-8, which HCL cannot spell), or,
// with LaunchesNothing, from an unset env(). Integers are sometimes
// written as strings or as fractions.
func (g *launchGen) spec(r *rawLaunch) ([]byte, LoadOptions) {
	env := map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/root"}
	opts := LoadOptions{LookupEnv: lookupFrom(env), LaunchesNothing: g.chance(0.2)}
	var b strings.Builder
	val := func(s string) string {
		switch x := g.r.Float64(); {
		case x < 0.1 || !utf8.ValidString(s):
			name := fmt.Sprintf("V%d", len(env))
			env[name] = s
			return fmt.Sprintf("env(%q)", name)
		case x < 0.13 && opts.LaunchesNothing:
			return `env("UNSET")`
		default:
			return hclQuote(s)
		}
	}
	label := func(s string) string {
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "?")
		}
		return hclQuote(s)
	}
	list := func(name string, v []string) {
		if v == nil {
			return
		}
		if g.chance(0.05) {
			env["L"] = "x"
			fmt.Fprintf(&b, "  %s = [env(\"L\")]\n", name)
			return
		}
		elems := make([]string, len(v))
		for i, e := range v {
			elems[i] = val(e)
		}
		fmt.Fprintf(&b, "  %s = [%s]\n", name, strings.Join(elems, ", "))
	}
	str := func(indent, name, v string) {
		if v != "" || g.chance(0.1) {
			fmt.Fprintf(&b, "%s%s = %s\n", indent, name, val(v))
		}
	}
	num := func(indent, name string, v *int) {
		if v == nil {
			return
		}
		switch x := g.r.Float64(); {
		case x < 0.05:
			fmt.Fprintf(&b, "%s%s = %d.5\n", indent, name, *v)
		case x < 0.1:
			fmt.Fprintf(&b, "%s%s = \"%d\"\n", indent, name, *v)
		case x < 0.12:
			fmt.Fprintf(&b, "%s%s = %d000000000000\n", indent, name, *v)
		default:
			fmt.Fprintf(&b, "%s%s = %d\n", indent, name, *v)
		}
	}
	fmt.Fprintf(&b, "launch %s {\n", label(r.Name))
	list("command", r.Command)
	list("dispatch", r.Dispatch)
	str("  ", "dir", r.Dir)
	str("  ", "env_file", r.EnvFile)
	list("inherit", r.Inherit)
	if r.Env != nil {
		b.WriteString("  env = {\n")
		for _, k := range slices.Sorted(maps.Keys(r.Env)) {
			key := hclQuote(strings.ToValidUTF8(k, "?"))
			fmt.Fprintf(&b, "    %s = %s\n", key, val(r.Env[k]))
		}
		b.WriteString("  }\n")
	}
	list("require", r.Require)
	list("forbid_wrappers", r.ForbidWrappers)
	list("secret", r.Secret)
	num("  ", "attempts", r.Attempts)
	str("  ", "on_stale", r.OnStale)
	if w := r.Worker; w != nil {
		b.WriteString("  worker {\n")
		str("    ", "comm", w.Comm)
		str("    ", "exe", w.Exe)
		b.WriteString("  }\n")
	}
	for _, p := range r.Ports {
		fmt.Fprintf(&b, "  port %s {\n", label(p.Name))
		if g.chance(0.97) {
			num("    ", "number", &p.Number)
		}
		str("    ", "address", p.Address)
		if p.AllowAllInterfaces || g.chance(0.1) {
			fmt.Fprintf(&b, "    allow_all_interfaces = %t\n", p.AllowAllInterfaces)
		}
		b.WriteString("  }\n")
	}
	if rd := r.Ready; rd != nil {
		b.WriteString("  ready {\n")
		str("    ", "http", rd.HTTP)
		str("    ", "timeout", rd.Timeout)
		b.WriteString("  }\n")
	}
	if rs := r.Restart; rs != nil {
		b.WriteString("  restart {\n")
		str("    ", "policy", rs.Policy)
		num("    ", "max", rs.Max)
		str("    ", "backoff", rs.Backoff)
		b.WriteString("  }\n")
	}
	if sl := r.Slurm; sl != nil {
		b.WriteString("  slurm {\n")
		str("    ", "partition", sl.Partition)
		str("    ", "gres", sl.Gres)
		str("    ", "time", sl.Time)
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	return []byte(b.String()), opts
}

// hclQuote writes s (valid UTF-8) as an HCL quoted string literal.
func hclQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\u` + fmt.Sprintf("%04x", c))
		case (c == '$' || c == '%') && strings.HasPrefix(s[i+1:], "{"):
			b.WriteRune(c)
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FuzzValidateDifferential checks the production engine against the
// oracle on the launches a fuzzed seed generates, as raw structs and as
// spec text.
func FuzzValidateDifferential(f *testing.F) {
	for _, s := range []uint64{0, 1, diffSeed, 1 << 63} {
		f.Add(s)
	}
	path := filepath.Join(f.TempDir(), "s.hcl")
	f.Fuzz(func(t *testing.T, seed uint64) {
		g := newLaunchGen(seed)
		for range 4 {
			raw := g.launch()
			hide := g.hider(&raw)
			if diff := cmp.Diff(problemViews(oracleValidateLaunch(&raw, hide)), problemViews(validateLaunch(&raw, hide))); diff != "" {
				t.Fatalf("raw launch %#v: problems differ (-oracle +validator):\n%s", raw, diff)
			}
			src, opts := g.spec(&raw)
			if diff := loadBoth(src, path, opts, true); diff != "" {
				t.Fatalf("spec\n%s\n%s", src, diff)
			}
		}
	})
}
