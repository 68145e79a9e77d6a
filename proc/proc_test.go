package proc

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMain lets the test binary act as a helper process: with
// PROC_TEST_HELPER=listen it listens on loopback, prints the port and waits.
func TestMain(m *testing.M) {
	switch os.Getenv("PROC_TEST_HELPER") {
	case "listen":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + "\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Stat
		bad  bool
	}{
		{name: "plain", in: "42 (sleep) S 1 42 42 0 -1 4194560 96 0 0 0 0 0 0 0 20 0 1 0 12345 2367488 129 184467 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0",
			want: Stat{Pid: 42, Comm: "sleep", State: 'S', PPid: 1, Pgrp: 42, Session: 42, StartTime: 12345}},
		{name: "comm with spaces and parens", in: "7 (a) b (c) R 2 3 4 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0",
			want: Stat{Pid: 7, Comm: "a) b (c", State: 'R', PPid: 2, Pgrp: 3, Session: 4, StartTime: 99}},
		{name: "cpu ticks are utime plus stime", in: "8 (busy) R 2 3 4 0 -1 0 0 0 0 0 250 17 0 0 20 0 1 0 99 0 0",
			want: Stat{Pid: 8, Comm: "busy", State: 'R', PPid: 2, Pgrp: 3, Session: 4, CPUTicks: 267, StartTime: 99}},
		{name: "empty comm", in: "7 () Z 2 3 4 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0",
			want: Stat{Pid: 7, State: 'Z', PPid: 2, Pgrp: 3, Session: 4, StartTime: 5}},
		{name: "truncated", in: "7 (x) S 1 2", bad: true},
		{name: "no comm", in: "7 x S 1 2 3", bad: true},
		{name: "bad pid", in: "x (y) S 1 2 3 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStat([]byte(tt.in))
			if tt.bad {
				if err == nil {
					t.Fatalf("ParseStat(%q) = %+v, want error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseStat mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseEnviron(t *testing.T) {
	got := ParseEnviron([]byte("A=1\x00B=\x00C=x=y\x00\x00NOEQ\x00A=2\x00=weird=v"))
	want := []Var{{"A", "1"}, {"B", ""}, {"C", "x=y"}, {"NOEQ", ""}, {"A", "2"}, {"=weird", "v"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ParseEnviron mismatch (-want +got):\n%s", d)
	}
	if v, ok := Lookup(got, "A"); !ok || v != "1" {
		t.Errorf("Lookup(A) = %q, %v; want first entry", v, ok)
	}
	if got := ParseEnviron(nil); len(got) != 0 {
		t.Errorf("ParseEnviron(nil) = %v", got)
	}
}

func TestParseStatus(t *testing.T) {
	in := "Name:\tmock-llm\nUmask:\t0022\nState:\tS (sleeping)\nPPid:\t12\nUid:\t65534\t65534\t65534\t65534\nNSpid:\t40\t1\n"
	got, err := ParseStatus([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Status{Name: "mock-llm", UID: 65534, EUID: 65534, PPid: 12, NSpid: []int{40, 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ParseStatus mismatch (-want +got):\n%s", d)
	}
	if _, err := ParseStatus([]byte("Name:\tx\n")); err == nil {
		t.Error("ParseStatus without Uid: want error")
	}
}

func TestFixtureRoot(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "100")
	must(t, os.MkdirAll(filepath.Join(d, "task", "100"), 0o755))
	must(t, os.MkdirAll(filepath.Join(d, "task", "101"), 0o755))
	must(t, os.MkdirAll(filepath.Join(d, "fd"), 0o755))
	must(t, os.WriteFile(filepath.Join(d, "environ"), []byte("K=v\x00"), 0o644))
	must(t, os.WriteFile(filepath.Join(d, "cmdline"), []byte("srv\x00--addr\x00x\x00"), 0o644))
	must(t, os.WriteFile(filepath.Join(d, "comm"), []byte("srv (x)\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(d, "task", "100", "children"), []byte("300 200 "), 0o644))
	must(t, os.WriteFile(filepath.Join(d, "task", "101", "children"), []byte("200 400 "), 0o644))
	must(t, os.Symlink("socket:[777]", filepath.Join(d, "fd", "3")))
	must(t, os.Symlink("/dev/null", filepath.Join(d, "fd", "0")))
	must(t, os.Symlink("/usr/bin/srv", filepath.Join(d, "exe")))
	p := FS{Root: root}
	if env, err := p.Environ(100); err != nil || len(env) != 1 || env[0].Name != "K" {
		t.Errorf("Environ = %v, %v", env, err)
	}
	if argv, _ := p.Cmdline(100); !cmp.Equal(argv, []string{"srv", "--addr", "x"}) {
		t.Errorf("Cmdline = %q", argv)
	}
	if c, _ := p.Comm(100); c != "srv (x)" {
		t.Errorf("Comm = %q", c)
	}
	if kids, _ := p.Children(100); !cmp.Equal(kids, []int{200, 300, 400}) {
		t.Errorf("Children = %v (want the union over threads)", kids)
	}
	if inos, _ := p.SocketInodes(100); !cmp.Equal(inos, []uint64{777}) {
		t.Errorf("SocketInodes = %v", inos)
	}
	if owners := p.SocketOwnersOf(map[uint64]bool{777: true, 778: true}); !cmp.Equal(owners, map[uint64][]int{777: {100}}) {
		t.Errorf("SocketOwnersOf = %v", owners)
	}
	if exe, _ := p.Exe(100); exe != "/usr/bin/srv" {
		t.Errorf("Exe = %q", exe)
	}
	if _, err := p.Stat(999); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("Stat(missing) err = %v, want ErrGone", err)
	}
}

func TestRealProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = []string{"PROC_TEST_HELPER=listen", "CHILDPROOF_PROBE=yes"}
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 16)
	n, _ := out.Read(buf)
	if n == 0 {
		t.Fatal("helper printed no port")
	}
	pid := cmd.Process.Pid
	p := Default
	env, err := p.Environ(pid)
	must(t, err)
	if v, ok := Lookup(env, "CHILDPROOF_PROBE"); !ok || v != "yes" {
		t.Errorf("environ of helper lacks CHILDPROOF_PROBE: %v", env)
	}
	st, err := p.Stat(pid)
	must(t, err)
	if st.PPid != os.Getpid() || st.StartTime == 0 {
		t.Errorf("Stat = %+v, want ppid %d", st, os.Getpid())
	}
	kids, err := p.Children(os.Getpid())
	must(t, err)
	found := false
	for _, k := range kids {
		found = found || k == pid
	}
	if !found {
		t.Errorf("Children(self) = %v, lacks %d", kids, pid)
	}
	inos, err := p.SocketInodes(pid)
	must(t, err)
	if len(inos) == 0 {
		t.Errorf("helper holds no socket")
	}
	st2, err := p.Status(pid)
	must(t, err)
	if st2.UID != os.Getuid() {
		t.Errorf("Status.UID = %d", st2.UID)
	}
	exe, err := p.Exe(pid)
	must(t, err)
	self, _ := os.Executable()
	if exe != self {
		t.Errorf("Exe = %q, want %q", exe, self)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func FuzzParseEnviron(f *testing.F) {
	f.Add([]byte("A=1\x00B=2\x00"))
	f.Add([]byte("\x00\x00=\x00==\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range ParseEnviron(b) {
			if v.Name == "" {
				t.Fatalf("empty name from %q", b)
			}
		}
	})
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (sleep) S 1 42 42 0 -1 4194560 96 0 0 0 0 0 0 0 20 0 1 0 12345 2367488 129"))
	f.Add([]byte("7 (a) b (c) R 2 3 4 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0"))
	f.Add([]byte(")("))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStat(b)
		if err == nil && s.State == 0 {
			t.Fatalf("no state from %q", b)
		}
	})
}

func BenchmarkParseEnviron(b *testing.B) {
	var sb strings.Builder
	for i := range 60 {
		sb.WriteString("VARIABLE_" + strconv.Itoa(i) + "=some-reasonably-long-value/with/path\x00")
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ParseEnviron(data)
	}
}

func BenchmarkEnvironSelf(b *testing.B) {
	pid := os.Getpid()
	for b.Loop() {
		if _, err := Default.Environ(pid); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte("Name:\tx\nUid:\t0\t0\t0\t0\nNSpid:\t1 2\n"))
	f.Add([]byte("Uid:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseStatus(b)
	})
}

func TestDescribePaddedTitle(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "100")
	must(t, os.MkdirAll(d, 0o755))
	// redis-server writes its title over argv, padded to the area's end.
	title := "redis-server 127.0.0.1:6379" + strings.Repeat(" ", 40) + "\x00\x00\x00"
	must(t, os.WriteFile(filepath.Join(d, "cmdline"), []byte(title), 0o644))
	got := FS{Root: root}.Describe(100)
	if want := "pid 100 uid ? age ?: redis-server 127.0.0.1:6379"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
