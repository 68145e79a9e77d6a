package launcher

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/childproof/childproof/internal/testsupport"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/schema"
	"golang.org/x/sys/unix"
)

// The deathsig helper reads the parent-death signal, which Linux keeps
// per thread: the launch set it on the thread that exec'd, the process's
// first. A LockOSThread in an init keeps the main goroutine (TestMain, the
// helpers) on that thread; without it the goroutine may run on a thread
// the runtime made later, which reads 0 (TestStartDeathSignal/false failed
// so under load).
func init() { runtime.LockOSThread() }

// TestMain lets the test binary be the launched server: argv[1] ==
// "helper" or "fault" selects a mode (the helper-process pattern).
func TestMain(m *testing.M) {
	RelayMain()
	if len(os.Args) > 2 && os.Args[1] == "helper" {
		os.Exit(helper(os.Args[2], os.Args[3:]))
	}
	if len(os.Args) > 2 && os.Args[1] == "fault" {
		os.Exit(faultHelper(os.Args[2], os.Args[3:]))
	}
	code := m.Run()
	if testServer.remove != nil {
		testServer.remove()
	}
	os.Exit(code)
}

// testServer is launcher/testdata/testserver ("testserver serve ADDR",
// a log relay too), built on first use (testServerPath) once for this
// test binary, without its race detector: a test that starts a server
// and a relay many times, where neither is what it tests, starts these
// instead of this race binary (about 0.3 CPU-s a start and its relay).
var testServer struct {
	once   sync.Once
	path   string
	remove func()
	err    error
}

// testServerPath builds the test server once and returns its path.
func testServerPath(t testing.TB) string {
	t.Helper()
	testServer.once.Do(func() {
		testServer.path, testServer.remove, testServer.err = testsupport.BuildProgram("./testdata/testserver", "CHILDPROOF_TESTSERVER")
	})
	if testServer.err != nil {
		t.Fatal(testServer.err)
	}
	return testServer.path
}

func helper(mode string, args []string) int {
	switch mode {
	case "deathsig": // deathsig ADDR: print its parent-death signal, then serve ADDR
		var sig int32
		syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0)
		fmt.Println("parent-death signal", sig)
		return helper("serve", args)
	case "netns-serve": // netns-serve ADDR: bring up the loopback of its own network namespace, then serve ADDR
		if err := loopbackUp(); err != nil {
			fmt.Println("loopback:", err)
			return 2
		}
		return helper("serve", args)
	case "serve": // serve ADDR: HTTP with /healthz, until a signal
		ln, err := net.Listen("tcp", args[0])
		if err != nil {
			fmt.Println("listen:", err)
			return 2
		}
		fmt.Println("listening on", ln.Addr())
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
		go http.Serve(ln, mux)
		select {}
	case "reload-on-term": // reload-on-term ADDR: serve ADDR; SIGTERM is a reload (uWSGI's way), SIGINT and SIGQUIT end it
		terms := make(chan os.Signal, 4)
		signal.Notify(terms, syscall.SIGTERM)
		go func() {
			for range terms {
				fmt.Println("SIGTERM: reloading")
			}
		}()
		return helper("serve", args)
	case "busy": // busy ADDR DURATION: /healthz answers 503 for DURATION, then 200; logs each probe
		ln, err := net.Listen("tcp", args[0])
		if err != nil {
			fmt.Println("listen:", err)
			return 2
		}
		busy, _ := time.ParseDuration(args[1])
		ready := time.Now().Add(busy)
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
			if time.Now().Before(ready) {
				fmt.Println("probe 503")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Println("probe 200")
		})
		go http.Serve(ln, mux)
		select {}
	case "thread-exec": // thread-exec ADDR: exec "serve ADDR" from a thread other than the main one
		self, _ := os.Executable()
		for {
			done := make(chan struct{})
			go func() {
				runtime.LockOSThread()
				if unix.Gettid() != os.Getpid() {
					syscall.Exec(self, []string{os.Args[0], "helper", "serve", args[0]}, os.Environ())
				}
				close(done)
			}()
			<-done
		}
	case "die": // die CODE LINE…
		for _, l := range args[1:] {
			fmt.Println(l)
		}
		code, _ := strconv.Atoi(args[0])
		return code
	case "spawn": // spawn PROG ARGS…: start a child and wait for it
		c := exec.Command(args[0], args[1:]...)
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			return 2
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		go func() { <-sig; c.Process.Signal(syscall.SIGTERM); os.Exit(143) }()
		c.Wait()
		return 0
	case "supervise": // supervise STATEDIR BIN PORT: a foreground launch, then wait
		st, err := OpenState(args[0])
		if err != nil {
			return 2
		}
		l := &schema.Launch{Name: "sup", Command: []string{args[1], "helper", "serve", "127.0.0.1:" + args[2]},
			Ports: []schema.Port{{Number: atoi(args[2])}}}
		la, err := Start(context.Background(), l, Options{State: st, Tracking: Tracking{Subreaper: true}})
		if err != nil {
			fmt.Println("error:", err)
			return 10 + int(outcomeOf(err))
		}
		fmt.Println(la.Pid())
		return la.Wait().ExitCode()
	case "wrapped": // wrapped STATEDIR BIN PORT: a foreground launch whose worker runs below sh; print "ROOT WORKER CGROUP", then wait
		st, err := OpenState(args[0])
		if err != nil {
			return 2
		}
		l := &schema.Launch{Name: "wrapped", Command: []string{"sh", "-c", `"$0" helper serve "$1"; echo served`, args[1], "127.0.0.1:" + args[2]},
			Ports: []schema.Port{{Number: atoi(args[2])}}}
		la, err := Start(context.Background(), l, Options{State: st})
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		fmt.Println(la.Root().Pid, la.Pid(), la.Record.Cgroup+"/")
		select {}
	case "stop-int": // stop-int STATEDIR BIN PORT plain|notify: launch BIN's reload-on-term with stop SIGINT, stop it, print "IGNORED KILLED CODE"
		if args[3] == "notify" {
			signal.Notify(make(chan os.Signal, 1), os.Interrupt)
		}
		st, err := OpenState(args[0])
		if err != nil {
			return 2
		}
		addr := "127.0.0.1:" + args[2]
		l := &schema.Launch{Name: "stop-int", Command: []string{args[1], "helper", "reload-on-term", addr},
			Ports: []schema.Port{{Number: atoi(args[2]), Address: "127.0.0.1"}},
			Stop:  schema.Stop{Signal: "SIGINT", Timeout: 2 * time.Second}}
		la, err := Start(context.Background(), l, Options{State: st})
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		ignored := sigIgnored(la.Pid(), unix.SIGINT)
		res, err := la.Stop(context.Background())
		if err != nil {
			fmt.Println("error:", err)
			return 2
		}
		fmt.Println(ignored, res.Killed, la.Wait().ExitCode())
		return 0
	case "sleep":
		time.Sleep(time.Hour)
	case "say-later": // say-later DELAY LINE: print LINE after DELAY, then sleep
		d, _ := time.ParseDuration(args[0])
		time.Sleep(d)
		fmt.Println(args[1])
		time.Sleep(time.Hour)
	case "listen-when": // listen-when FILE ADDR: once FILE exists, listen on ADDR, printing nothing
		for {
			if _, err := os.Stat(args[0]); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		ln, err := net.Listen("tcp", args[1])
		if err != nil {
			return 2
		}
		defer ln.Close()
		select {}
	case "ready-when": // ready-when FILE: exit 0 iff FILE (relative: to the cwd) exists and MOCK_LLM_KEY is set
		if _, err := os.Stat(args[0]); err != nil || os.Getenv("MOCK_LLM_KEY") == "" {
			fmt.Println("not yet")
			return 1
		}
		return 0
	}
	return 1
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// helperBin puts the test binary in a world-readable directory under
// names (symlinks), so that other uids can run it and each name has its
// own comm. It returns the directory. The binary is a hard link to the
// test binary, a copy only where a link cannot be made (another file
// system): a copy of the -race binary (30 MB) per fixture cost CPU and
// page cache for every test.
func helperBin(t testing.TB, names ...string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "childproof-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	self, _ := os.Executable()
	bin := filepath.Join(dir, "helper")
	if err := os.Link(self, bin); err != nil {
		data, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	} else if fi, err := os.Stat(bin); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
		os.Chmod(bin, 0o755) // others run it (a umask of 077 built it 0700)
	}
	for _, n := range names {
		if err := os.Symlink(bin, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// serverBin links the test server (testServerPath) into dir as
// srv/mock-srv, world-readable as helperBin's, and returns its path: the
// fixture's default server and relay, with the comm tests expect, without
// this race binary's cost (about 0.1 CPU-s a start, 0.2 a relay).
func serverBin(t testing.TB, dir string) string {
	t.Helper()
	src := testServerPath(t)
	sub := filepath.Join(dir, "srv")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(sub, 0o755)
	bin := filepath.Join(sub, "mock-srv")
	if err := os.Link(src, bin); err != nil {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(bin, 0o755) // others run it (a umask of 077 built it 0700)
	return bin
}

var procDefault = proc.Default

// freePort returns a port nothing listens on right now, below the
// ephemeral range and never handed out twice (launchertest.FreePort's
// picker: launchertest itself imports this package).
func freePort(t testing.TB) int {
	t.Helper()
	p, err := testsupport.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
