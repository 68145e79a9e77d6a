package verify

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/childproof/childproof/proc"
)

type digester struct{}

func (digester) Digest(name, value string) string { return "d:" + name + "=" + value }

// fakeWorker writes a /proc/42 with environ, cmdline and a stat whose
// argv area is argLen bytes long.
func fakeWorker(t *testing.T, environ, cmdline string, argLen int) proc.FS {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "42")
	os.MkdirAll(filepath.Join(dir, "task", "42"), 0o755)
	fields := make([]string, 49)
	for i := range fields {
		fields[i] = "0"
	}
	fields[0], fields[1], fields[2] = "S", "1", "42"
	fields[19] = "1000"
	fields[45], fields[46] = "1000", fmt.Sprint(1000+argLen) // arg_start, arg_end
	fields[47], fields[48] = fmt.Sprint(1000+argLen), fmt.Sprint(1000+argLen+len(environ))
	stat := "42 (srv) " + strings.Join(fields, " ") + "\n"
	for name, body := range map[string]string{"stat": stat, "environ": environ, "cmdline": cmdline, "comm": "srv\n", "task/42/children": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("/usr/bin/srv", filepath.Join(dir, "exe"))
	return proc.FS{Root: root}
}

func TestRewritten(t *testing.T) {
	for _, tc := range []struct {
		name, environ, cmdline string
		argLen                 int
		want                   string // substring; "" means intact
	}{
		{"intact", "APP_TOKEN=x\x00PATH=/bin\x00", "srv\x00--port\x00", 11, ""},
		{"empty value intact", "A=\x00B=1\x00", "srv\x00", 4, ""},
		{"all NUL (nginx, redis)", strings.Repeat("\x00", 64), "nginx: master\x00", 14, "holds only NUL bytes"},
		{"title over the first entries (setproctitle)", "unicorn: master [app:app]\x00OTHER=1\x00", "gunicorn: master [app:app]\x00", 26, "not NAME=VALUE"},
		{"title with = and spaces", "srv --port=80\x00B=1\x00", "srv\x00", 4, "not NAME=VALUE"},
		{"cmdline past the argv area", "B=1\x00", "a-title-longer-than-argv\x00", 4, "runs past its 4-byte argv area"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fakeWorker(t, tc.environ, tc.cmdline, tc.argLen)
			le, err := p.LiveEnv(42)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && le.Rewritten != "" || tc.want != "" && !strings.Contains(le.Rewritten, tc.want) {
				t.Errorf("Rewritten = %q, want %q", le.Rewritten, tc.want)
			}
		})
	}
}

// TestCheckEnvEvidence: exec-time evidence wins over a rewritten live
// block; without it a name the rewritten block lost is env-unreadable.
func TestCheckEnvEvidence(t *testing.T) {
	p := fakeWorker(t, strings.Repeat("\x00", 40), "redis-server *:6379\x00", 20)
	v := &Verifier{Proc: p, State: digester{}}
	x := Expect{Require: []string{"APP_TOKEN"}, Values: map[string]string{"MODE": "fast"}}
	for _, tc := range []struct {
		name     string
		ev       *ExecEnv
		kinds    []Kind
		evidence string
	}{
		{"no evidence", nil, []Kind{KindEnvUnreadable, KindEnvUnreadable}, EvidenceLive},
		{"captured in-process", &ExecEnv{Vars: []proc.Var{{Name: "APP_TOKEN", Value: "t"}, {Name: "MODE", Value: "fast"}}, Exe: "/usr/bin/srv"}, nil, EvidenceExec},
		{"recorded digests", &ExecEnv{Digests: map[string]string{"APP_TOKEN": "d:APP_TOKEN=t", "MODE": "d:MODE=slow"}, Exe: "/usr/bin/srv"}, []Kind{KindEnvMismatch}, EvidenceExec},
		{"recorded, empty required", &ExecEnv{Digests: map[string]string{"APP_TOKEN": "d:APP_TOKEN=", "MODE": "d:MODE=fast"}}, []Kind{KindEnvMissing}, EvidenceExec},
		{"stale: exec'd another program since", &ExecEnv{Vars: []proc.Var{{Name: "APP_TOKEN", Value: "t"}}, Exe: "/usr/bin/other"}, []Kind{KindEnvUnreadable, KindEnvUnreadable}, EvidenceLive},
		{"the same exec (its environment area)", &ExecEnv{Vars: []proc.Var{{Name: "APP_TOKEN", Value: "t"}, {Name: "MODE", Value: "fast"}}, Exe: "/usr/bin/srv", Area: "3fc-424"}, nil, EvidenceExec},
		// The same program exec'd again, from a thread the tracer did not
		// follow: its stack (and environment area) moved.
		{"stale: the same program exec'd again since", &ExecEnv{Vars: []proc.Var{{Name: "APP_TOKEN", Value: "t"}, {Name: "MODE", Value: "fast"}}, Exe: "/usr/bin/srv", Area: "7ffd1000-7ffd1100"}, []Kind{KindEnvUnreadable, KindEnvUnreadable}, EvidenceLive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReport("t")
			v.checkEnv(r, Check{Expect: x, ExecEnv: tc.ev}, 42)
			var kinds []Kind
			for _, pr := range r.Problems {
				kinds = append(kinds, pr.Kind)
				if strings.Contains(pr.Message, "not set") && pr.Kind != KindEnvMissing {
					t.Errorf("problem %q says not set", pr.Message)
				}
			}
			if strings.HasPrefix(tc.name, "stale") && !strings.Contains(r.EnvNote, "exec") {
				t.Errorf("note %q does not say the evidence is stale", r.EnvNote)
			}
			if !slices.Equal(kinds, tc.kinds) {
				t.Errorf("problems %v, want kinds %v", r.Problems, tc.kinds)
			}
			if r.EnvEvidence != tc.evidence || r.EnvNote == "" { // the live block here is rewritten: always a note
				t.Errorf("evidence %q note %q, want %q", r.EnvEvidence, r.EnvNote, tc.evidence)
			}
		})
	}
}

// TestCheckEnvEmptyRead: a worker whose environment block reads empty is
// judged by what its stat says of its environment area. Exec'd with no
// environment (an empty area), a required name is missing; an area of
// bytes the read did not return, or a worker exiting (no area: its memory
// is gone, as when nginx's first process exits after forking its
// daemon), leaves it unreadable, not missing.
func TestCheckEnvEmptyRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		state  string
		envLen int // the environment area's length; -1: the stat shows none
		kind   Kind
		note   string
	}{
		{"exec'd with no environment", "S", 0, KindEnvMissing, ""},
		{"an area the read did not return", "S", 120, KindEnvUnreadable, "its environment area is 120 bytes"},
		{"exiting", "R", -1, KindEnvUnreadable, "it is exiting"},
		{"zombie", "Z", -1, KindEnvUnreadable, "it is exiting"},
	} {
		exiting := tc.note == "it is exiting"
		t.Run(tc.name, func(t *testing.T) {
			p := fakeWorker(t, "", "srv\x00", 4)
			fields := make([]string, 49)
			for i := range fields {
				fields[i] = "0"
			}
			fields[0], fields[1], fields[2], fields[19] = tc.state, "1", "42", "1000"
			if tc.envLen >= 0 {
				fields[45], fields[46], fields[47], fields[48] = "1000", "1004", "1004", fmt.Sprint(1004+tc.envLen)
			}
			if err := os.WriteFile(filepath.Join(p.Root, "42", "stat"), []byte("42 (srv) "+strings.Join(fields, " ")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			v := &Verifier{Proc: p, State: digester{}}
			r := NewReport("t")
			v.checkEnv(r, Check{Expect: Expect{Require: []string{"APP_TOKEN"}}}, 42)
			if len(r.Problems) != 1 || r.Problems[0].Kind != tc.kind {
				t.Fatalf("problems %v, want one of kind %s", r.Problems, tc.kind)
			}
			if tc.note != "" && (!strings.Contains(r.Problems[0].Message, tc.note) || !strings.Contains(r.EnvNote, tc.note)) {
				t.Errorf("problem %q, note %q: want both to say %q", r.Problems[0].Message, r.EnvNote, tc.note)
			}
			if gone := errors.Is(r.Problems[0].Err, proc.ErrGone); gone != exiting {
				t.Errorf("problem caused by %v: want proc.ErrGone %v (the worker is gone: the launch judges its exit)", r.Problems[0].Err, exiting)
			}
			if tc.note == "" && r.EnvNote != "" {
				t.Errorf("note %q, want none", r.EnvNote)
			}
		})
	}
}
