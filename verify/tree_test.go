package verify

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/childproof/childproof/proc"
	"github.com/google/go-cmp/cmp"
)

// fakeMember is one process of a generated tree under a fake /proc.
type fakeMember struct {
	pid, ppid int
	comm, exe string
	// area is where its last exec put its environment block: a fork
	// copies the parent's, an exec lays out a new one.
	area uint64
	// block is what its last exec received; env is what it holds in
	// process now (what a child it spawns receives).
	block, env map[string]string
	execd      bool
	// title: it wrote a process title over its block (setproctitle).
	title bool
	// captured: its exec was captured by the tracer (exec-time evidence).
	captured bool
}

// writeFakeProc writes ms as a /proc snapshot: stat (with the env area,
// fields 50-51), comm, exe, environ and children.
func writeFakeProc(t *testing.T, ms []*fakeMember) proc.FS {
	t.Helper()
	root := t.TempDir()
	kids := map[int][]int{}
	for _, m := range ms {
		kids[m.ppid] = append(kids[m.ppid], m.pid)
	}
	for _, m := range ms {
		dir := filepath.Join(root, fmt.Sprint(m.pid))
		if err := os.MkdirAll(filepath.Join(dir, "task", fmt.Sprint(m.pid)), 0o755); err != nil {
			t.Fatal(err)
		}
		f := make([]string, 52)
		for i := range f {
			f[i] = "0"
		}
		f[0], f[1], f[2], f[3], f[4], f[21] = fmt.Sprint(m.pid), "("+m.comm+")", "S", fmt.Sprint(m.ppid), fmt.Sprint(m.ppid), fmt.Sprint(1000+m.pid)
		f[49], f[50] = fmt.Sprint(m.area), fmt.Sprint(m.area+4096)
		var env []byte
		if m.title {
			env = []byte(m.comm + ": worker\x00\x00\x00")
		} else {
			names := make([]string, 0, len(m.block))
			for n := range m.block {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				env = fmt.Appendf(env, "%s=%s\x00", n, m.block[n])
			}
		}
		var ch []byte
		for _, k := range kids[m.pid] {
			ch = fmt.Appendf(ch, "%d ", k)
		}
		for name, b := range map[string][]byte{"stat": []byte(strings.Join(f, " ") + "\n"), "comm": []byte(m.comm + "\n"), "environ": env,
			filepath.Join("task", fmt.Sprint(m.pid), "children"): ch} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(m.exe, filepath.Join(dir, "exe")); err != nil {
			t.Fatal(err)
		}
	}
	return proc.FS{Root: root}
}

// TestJudgeTreeProperties: over generated trees under a fake /proc —
// spawns (fork + exec), forks without exec (helpers), re-execs, values
// changed in-process at random edges, blocks rewritten with a title (some
// captured at exec) — JudgeTree reports env-diverged exactly for the
// exec'd members (the root, the worker, aside) whose readable evidence
// differs from the intended value, naming each one; explain's Judge
// agrees; and Workers never returns a helper.
func TestJudgeTreeProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 36))
	const name, want = "KEY", "0"
	for i := range 50 {
		var ms []*fakeMember
		next, area := 100, uint64(0x7ff000000)
		newArea := func() uint64 { area += 0x10000; return area }
		var grow func(parent *fakeMember, depth int)
		grow = func(parent *fakeMember, depth int) {
			m := &fakeMember{pid: next, ppid: 1}
			next++
			if parent == nil {
				m.comm, m.exe, m.area, m.execd, m.captured = "srv", "/usr/bin/srv", newArea(), true, true
				m.block = map[string]string{name: want, "PATH": "/bin"}
			} else {
				m.ppid = parent.pid
				if r.IntN(3) == 0 {
					// fork without exec: the parent's image and block
					m.comm, m.exe, m.area, m.block = parent.comm, parent.exe, parent.area, parent.block
					m.title = parent.title
				} else {
					// spawn: a new image receiving the parent's in-process env
					m.comm, m.exe, m.area, m.execd = "srv", "/usr/bin/srv", newArea(), true
					if r.IntN(2) == 0 {
						m.comm, m.exe = "helper", "/usr/bin/helper"
					}
					m.block = parent.env
					m.captured = r.IntN(2) == 0
				}
			}
			m.env = m.block
			if r.IntN(4) == 0 {
				// a value changed in-process: what it spawns gets it
				m.env = map[string]string{name: fmt.Sprint(r.IntN(3)), "PATH": "/bin"}
			}
			if m.execd && r.IntN(8) == 0 {
				// it re-execs itself with its in-process environment
				m.block, m.area = m.env, newArea()
			}
			if m.execd && parent != nil && r.IntN(6) == 0 {
				m.title = true // setproctitle over its block
			}
			ms = append(ms, m)
			if depth < 4 {
				for range r.IntN(4) {
					grow(m, depth+1)
				}
			}
		}
		grow(nil, 0)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			p := writeFakeProc(t, ms)
			byPid := map[int]*fakeMember{}
			var tree []int
			for _, m := range ms {
				byPid[m.pid] = m
				tree = append(tree, m.pid)
			}
			root := ms[0].pid
			evidence := func(pid int) *ExecEnv {
				m := byPid[pid]
				if m == nil || !m.captured {
					return nil
				}
				var vars []proc.Var
				for n, v := range m.block {
					vars = append(vars, proc.Var{Name: n, Value: v})
				}
				return &ExecEnv{Vars: vars, Exe: m.exe, Area: fmt.Sprintf("%x-%x", m.area, m.area+4096)}
			}
			tc := TreeCheck{Tree: tree, Workers: []int{root}, Evidence: evidence}
			v := &Verifier{Proc: p, State: digester{}}
			c := Check{Expect: Expect{Values: map[string]string{name: want}}}
			rep := NewReport("t")
			v.JudgeTree(rep, c, tc)

			var wantDiverged, gotDiverged []int
			for _, m := range ms[1:] {
				readable := !m.title || m.captured
				if m.execd && readable && m.block[name] != want {
					wantDiverged = append(wantDiverged, m.pid)
				}
			}
			for _, pr := range rep.Problems {
				if pr.Kind != KindEnvDiverged || pr.Subject.Var != name {
					t.Fatalf("unexpected problem %+v", pr)
				}
				if !strings.Contains(pr.Message, fmt.Sprintf("pid %d (", pr.Subject.Pid)) || !strings.Contains(pr.Message, "changed from pid") && !strings.Contains(pr.Message, "changed between pid") && !strings.Contains(pr.Message, "the launch root (pid") {
					t.Errorf("message names no member or edge: %s", pr.Message)
				}
				gotDiverged = append(gotDiverged, pr.Subject.Pid)
			}
			slices.Sort(gotDiverged)
			if diff := cmp.Diff(wantDiverged, gotDiverged); diff != "" {
				t.Errorf("env-diverged members (-want +got):\n%s", diff)
			}
			if (len(wantDiverged) == 0) != rep.Verified {
				t.Errorf("Verified = %v with %d diverged", rep.Verified, len(wantDiverged))
			}

			// explain agrees: its diverged rows are the same members
			rows := v.ExplainTree(root, root, []string{name}, nil, tc)
			js := Judge(rows, []string{name}, map[string]string{name: digester{}.Digest(name, want)})
			var explained []int
			for _, row := range js[0].Diverged {
				explained = append(explained, row.Pid)
			}
			slices.Sort(explained)
			if diff := cmp.Diff(wantDiverged, explained); diff != "" {
				t.Errorf("explain's diverged rows (-want +got):\n%s", diff)
			}
			for _, row := range rows {
				if m := byPid[row.Pid]; m != nil && row.Role == RoleDescendant && row.Helper == m.execd {
					t.Errorf("pid %d: Helper = %v, exec'd = %v", row.Pid, row.Helper, m.execd)
				}
			}

			// Workers never picks a helper, and hides no worker behind one
			for _, pid := range Workers(p, tree, "srv", "", len(tree), nil) {
				if !byPid[pid].execd {
					t.Errorf("Workers picked pid %d, a fork-only helper", pid)
				}
			}
		})
	}
}
