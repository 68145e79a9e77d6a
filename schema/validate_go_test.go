package schema

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/specrule"
	"github.com/google/go-cmp/cmp"
)

// The spec language's name rules, as the oracle engine (validate_oracle_test.go) calls them.
func isInheritEntry(s string) bool { return specrule.IsInheritEntry(s) }
func isLaunchName(s string) bool   { return specrule.IsLaunchName(s) }

// validatorValidate is what (*Launch).Validate was before package spec
// checked by hand: the Launch turned into the raw structs and checked by
// the loader's struct validator. TestValidateGoDifferential holds the
// hand check to it. Zero values stand for the
// defaults, as they do everywhere in a Launch (a port's name may be
// empty). It returns nil or an *InvalidError.
func validatorValidate(l *Launch) error {
	r := &rawLaunch{
		Name: l.Name, Command: l.Command, Dispatch: l.Dispatch, Dir: l.Dir, EnvFile: l.EnvFile,
		Inherit: l.Inherit, Env: l.Env, Require: l.Require, ForbidWrappers: l.ForbidWrappers,
		Secret: l.Secret, DependsOn: l.DependsOn, OnStale: string(l.OnStale), Volatile: l.Volatile,
		User: l.User, Group: l.Group,
	}
	if l.Attempts != 0 {
		r.Attempts = &l.Attempts
	}
	if l.Worker != (Worker{}) {
		r.Worker = &rawWorker{Comm: l.Worker.Comm, Exe: l.Worker.Exe}
		if l.Worker.Count != 0 {
			r.Worker.Count = &l.Worker.Count
		}
	}
	for _, p := range l.Ports {
		name := p.Name
		if name == "" {
			name = "port"
		}
		r.Ports = append(r.Ports, rawPort{Name: name, Number: p.Number, Address: p.Address, AllowAllInterfaces: p.AllowAllInterfaces})
	}
	if !l.Ready.IsZero() {
		r.Ready = &rawReady{HTTP: l.Ready.HTTP, Exec: l.Ready.Exec, Log: l.Ready.Log, Status: l.Ready.Status}
		if l.Ready.Timeout != 0 {
			r.Ready.Timeout = l.Ready.Timeout.String()
		}
	}
	if l.Restart != (Restart{}) {
		r.Restart = &rawRestart{Policy: string(l.Restart.EffectivePolicy())}
		if l.Restart.Max != 0 {
			r.Restart.Max = &l.Restart.Max
		}
		if l.Restart.Backoff != 0 {
			r.Restart.Backoff = l.Restart.Backoff.String()
		}
	}
	if l.Slurm != (Slurm{}) {
		r.Slurm = &rawSlurm{Partition: l.Slurm.Partition, Gres: l.Slurm.Gres, Time: l.Slurm.Time}
		if l.Slurm.Nodes != 0 {
			r.Slurm.Nodes = &l.Slurm.Nodes
		}
		if l.Slurm.TasksPerNode != 0 {
			r.Slurm.TasksPerNode = &l.Slurm.TasksPerNode
		}
	}
	if l.Stop != (Stop{}) {
		r.Stop = &rawStop{Signal: l.Stop.Signal}
		if l.Stop.Timeout != 0 {
			r.Stop.Timeout = l.Stop.Timeout.String()
		}
	}
	fps := validateLaunch(r, nil)
	if r.Ready != nil {
		fps = append(fps, readyProblems(r.Ready, nil)...)
	}
	fps = append(fps, roleProblems(l)...)
	if len(fps) == 0 {
		return nil
	}
	e := &InvalidError{Launch: l.Name}
	for _, fp := range fps {
		e.Problems = append(e.Problems, FieldProblem{Field: fp.ns, Summary: fp.summary, Detail: fp.detail})
	}
	return e
}

// TestValidateGoDifferential holds package spec's hand check of a Launch
// built in Go ((*Launch).Validate, which links no validator) to the
// validator-driven check it replaced (validatorValidate: the Launch as
// the loader's raw structs, checked by the loader's struct validator): on
// generated launches, valid and invalid in every field the check covers,
// the same problems — field, summary, detail — in the same order.
func TestValidateGoDifferential(t *testing.T) {
	n := 50_000
	if raceDetector || testing.Short() {
		n = 5_000
	}
	rng := rand.New(rand.NewPCG(diffSeed, 7))
	// Each launch has a rate of bad values: the first value of each pool
	// below is valid, and is picked unless the rate says otherwise, so that
	// launches with no problem, one, and many are all generated.
	var bad float64
	maybe := func(p float64) bool { return rng.Float64() < p }
	pick := func(vs ...string) string {
		if !maybe(bad) {
			return vs[0]
		}
		return vs[rng.IntN(len(vs))]
	}
	list := func(vs ...string) []string {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		out := make([]string, 1+rng.IntN(3))
		for i := range out {
			out[i] = pick(vs...)
		}
		return out
	}
	num := func(vs ...int) int {
		if !maybe(bad) {
			return vs[0]
		}
		return vs[rng.IntN(len(vs))]
	}
	dur := func() time.Duration {
		if !maybe(bad) {
			return time.Second
		}
		return []time.Duration{0, time.Second, 1500 * time.Millisecond, -time.Second, time.Nanosecond}[rng.IntN(5)]
	}
	names := []string{"api", "a.b-c_d", "", "-x", "bad name", strings.Repeat("n", 65), "é"}
	vars := []string{"PATH", "A_1", "1A", "", "A-B", "CUDA_*", "*", "[AB]_X", "CUDA_[", "X/*", "a\x00b"}
	args := []string{"/bin/true", "srv", "", "--flag", "a\x00b", "\xff"}
	problems := map[int]int{}
	for i := 0; i < n; i++ {
		bad = []float64{0, 0.02, 0.1, 0.4}[rng.IntN(4)]
		l := &Launch{Name: pick(names...)}
		switch {
		case !maybe(bad):
			l.Command = []string{pick(args...), pick(args...)}
		case maybe(0.3):
			l.Dispatch = list(args...)
		case maybe(0.3):
			l.Command, l.Dispatch = list(args...), list(args...)
		default:
			l.Command = list(args...)
		}
		if maybe(0.2) {
			l.Dir = pick("/srv", "", "a\x00b")
		}
		if maybe(0.2) {
			l.EnvFile = pick(".env", "a\x00b")
		}
		l.Inherit = list(vars...)
		if maybe(0.4) {
			l.Env = map[string]string{}
			for range 1 + rng.IntN(3) {
				l.Env[pick(vars...)] = pick(args...)
			}
		}
		l.Require = list(vars...)
		l.ForbidWrappers = list(append(slices.Clone(WrapperRules), "nosuch", "")...)
		l.Secret = list(vars...)
		l.Volatile = list(vars...)
		l.Attempts = num(0, 0, 1, 100, 101, -1)
		l.OnStale = OnStale(pick("", "", "replace", "fail", "nope"))
		l.User = pick("", "", "www-data", "1000", "4294967295", "bad user", "m$")
		l.Group = pick("", "", "staff", "-g")
		if maybe(0.4) {
			l.Worker = Worker{Comm: pick("", "srv", strings.Repeat("c", 16), "a\x00b"), Exe: pick("", "/usr/bin/srv", "rel/srv", "/a\x00b"), Count: num(0, 1, 2, 1025, -1)}
		}
		if maybe(0.2) {
			for range 1 + rng.IntN(2) {
				l.Roles = append(l.Roles, Role{Name: pick("api", "engine"), Worker: Worker{Comm: pick("", "srv"), Count: num(0, 2)}, Ports: list("http", "grpc", "nosuch")})
			}
		}
		for range rng.IntN(3) {
			l.Ports = append(l.Ports, Port{Name: pick("", "http", "grpc", "bad name"), Number: num(8080, 0, 65536, -1, 1, 65535), Address: pick("", "127.0.0.1", "::1", "0.0.0.0", "::", "fe80::1%eth0", "host"), AllowAllInterfaces: maybe(0.3)})
		}
		if maybe(0.5) {
			l.Ready = Ready{HTTP: pick("", "/healthz", "healthz", "/a b", "/\x01"), Log: pick("", "", "listening", "(")}
			if maybe(0.3) {
				l.Ready.Exec = list("pg_isready", "")
			}
			if maybe(0.3) {
				l.Ready.Status = []int{200, 204}
			}
			l.Ready.Timeout = dur()
		}
		if maybe(0.3) {
			l.Restart = Restart{Policy: RestartPolicy(pick("", "never", "on-failure", "always", "sometimes")), Max: num(0, 1, 1000, 1001, -2), Backoff: dur()}
		}
		if maybe(0.3) {
			l.Slurm = Slurm{Partition: pick("", "gpu", "a b", "\x7f"), Gres: pick("", "gpu:1"), Time: pick("", "10", "1-02:03:04", "1:2:3:4", "x"), Nodes: num(0, 1, 4097, -1), TasksPerNode: num(0, 2, 1025)}
		}
		if maybe(0.3) {
			l.Stop = Stop{Signal: pick("", "SIGINT", "SIGKILL"), Timeout: dur()}
		}
		got, want := l.Validate(), validatorValidate(l)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("launch %d %#v: the hand check differs from the validator (-validator +hand):\n%s", i, l, diff)
		}
		var ie *InvalidError
		if errors.As(got, &ie) {
			problems[len(ie.Problems)]++
		} else {
			problems[0]++
		}
	}
	t.Logf("%d launches by number of problems: %v", n, problems)
	if problems[0] == 0 || problems[1] == 0 || problems[3] == 0 {
		t.Errorf("the generator does not reach valid, one-problem and many-problem launches: %v", problems)
	}
}
