package scripthelper

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/childproof/childproof/internal/freeport"
)

// Main is the launch scripts' real server: when the test binary (or the
// scripts' build of childproof) runs with
// CHILDPROOF_TEST_SERVE=ADDR in its environment (passed through a spec's
// env), it is that server instead of childproof. CHILDPROOF_TEST_DIE=CODE
// makes it print two lines and exit with CODE before listening.
// CHILDPROOF_TEST_PIDFILE names a file it writes its pid to.
// CHILDPROOF_TEST_SERVE2=ADDR makes it listen on a second address too.
// CHILDPROOF_TEST_IGNORE_INT=1 makes it ignore SIGINT (SIGTERM ends it).
//
// `childproof test-free-port [FILE]` (test binary and scripts' build only) writes a port
// nothing listens on to ./port (or FILE), so that scripts run concurrently (and several
// engineers' test runs on one machine) do not collide; specs read it with
// file("port"). The ports come from freeport.FreePort in TestScript,
// which holds them for the whole run (a port picked and released by this
// short-lived process could be handed out again): each script gets
// Ports of them in $CHILDPROOF_TEST_PORTS, and each call takes the
// next.
//
// TestMain calls it first, before testscript.Main, so that what the test
// binary is does not depend on the order of init functions; the scripts'
// build calls it first in main.
func Main() {
	if (len(os.Args) == 2 || len(os.Args) == 3) && os.Args[1] == "test-free-port" {
		file := "port"
		if len(os.Args) == 3 {
			file = os.Args[2]
		}
		port, err := Port()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(file, []byte(strconv.Itoa(port)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	addr := os.Getenv("CHILDPROOF_TEST_SERVE")
	if addr == "" {
		return
	}
	// CHILDPROOF_FAULT_PIDFILE: write the pid there first (atomically);
	// CHILDPROOF_FAULT_DELAY: wait that long before serving.
	if f := os.Getenv("CHILDPROOF_FAULT_PIDFILE"); f != "" {
		os.WriteFile(f+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o644)
		os.Rename(f+".tmp", f)
	}
	// CHILDPROOF_FAULT_GATE: wait until that file exists before serving
	// (a test opens it once it has done what must come first: a state,
	// not a time).
	if g := os.Getenv("CHILDPROOF_FAULT_GATE"); g != "" {
		for {
			if _, err := os.Stat(g); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if d, err := time.ParseDuration(os.Getenv("CHILDPROOF_FAULT_DELAY")); err == nil {
		time.Sleep(d)
	}
	if f := os.Getenv("CHILDPROOF_TEST_PIDFILE"); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	if os.Getenv("CHILDPROOF_TEST_PRINTENV") != "" {
		// A worker that prints its whole environment and argv (the
		// canary test: childproof must mask what it quotes of this).
		for _, kv := range os.Environ() {
			fmt.Println("env:", kv)
		}
		fmt.Println("argv:", strings.Join(os.Args, " "))
	}
	if os.Getenv("CHILDPROOF_TEST_ECHO") != "" {
		// Each CNY_* value inside a URL, a path, a query, a word, and
		// across the 64 KiB read boundary of a line longer than it.
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			if !strings.HasPrefix(k, "CNY_") {
				continue
			}
			fmt.Printf("url: https://u:%s@db.example/x?token=%s&y=1 path: /var/lib/%s/data word: pre%spost\n", v, v, v, v)
			fmt.Print(strings.Repeat("x", 64<<10-len(v)/2) + v + strings.Repeat("y", 100) + "\n")
		}
	}
	if code := os.Getenv("CHILDPROOF_TEST_DIE"); code != "" {
		fmt.Println("starting test server")
		fmt.Println("FATAL: refusing to start without a provider")
		n, _ := strconv.Atoi(code)
		os.Exit(n)
	}
	// CHILDPROOF_TEST_SLOW=N: a slow start, N steps of 500 ms, each
	// printing a line, before listening. With CHILDPROOF_TEST_STEPS=DIR a
	// step waits for the file DIR/I instead: a test moves the worker on
	// from one state to the next (a screen it captures), not by time.
	if n, _ := strconv.Atoi(os.Getenv("CHILDPROOF_TEST_SLOW")); n > 0 {
		steps := os.Getenv("CHILDPROOF_TEST_STEPS")
		fmt.Println("loading weights")
		for i := 1; i <= n; i++ {
			if steps == "" {
				time.Sleep(500 * time.Millisecond)
			}
			for steps != "" && !exists(filepath.Join(steps, strconv.Itoa(i))) {
				time.Sleep(10 * time.Millisecond)
			}
			fmt.Printf("shard %d/%d\n", i, n)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	fmt.Println("listening on", ln.Addr())
	// CHILDPROOF_TEST_503=D: /healthz answers 503 for D after listening
	// (never, with "forever"; until the file PATH exists, with "until:PATH").
	busy := time.Now()
	d503 := os.Getenv("CHILDPROOF_TEST_503")
	until, gated := strings.CutPrefix(d503, "until:")
	if !gated {
		until = ""
	}
	if d503 == "forever" {
		busy = busy.Add(100 * time.Hour)
	} else if d, err := time.ParseDuration(d503); err == nil {
		busy = busy.Add(d)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if time.Now().Before(busy) || until != "" && !exists(until) {
			http.Error(w, "loading", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	go http.Serve(ln, mux)
	if addr2 := os.Getenv("CHILDPROOF_TEST_SERVE2"); addr2 != "" {
		ln2, err := net.Listen("tcp", addr2)
		if err != nil {
			fmt.Println("listen:", err)
			os.Exit(1)
		}
		go http.Serve(ln2, mux)
	}
	// A script that fails half-way leaves detached servers behind: each
	// exits once its testscript work directory is removed.
	if wd, err := os.Getwd(); err == nil {
		go func() {
			for {
				time.Sleep(200 * time.Millisecond)
				if _, err := os.Stat(wd); err != nil {
					os.Exit(0)
				}
			}
		}()
	}
	sig := make(chan os.Signal, 1)
	if os.Getenv("CHILDPROOF_TEST_IGNORE_INT") != "" {
		// A worker that ignores Ctrl-C: only SIGTERM ends it.
		signal.Ignore(syscall.SIGINT)
		signal.Notify(sig, syscall.SIGTERM)
	} else {
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	}
	<-sig
	os.Exit(0)
}

// Ports is how many ports each script may take with test-free-port.
const Ports = 4

// Port is the next of the script's ports ($CHILDPROOF_TEST_PORTS),
// counted in $WORK/.test-free-port; outside TestScript, one from freeport.FreePort.
func Port() (int, error) {
	return PortOf(os.Getenv("CHILDPROOF_TEST_PORTS"), os.Getenv("WORK"))
}

// PortOf is Port for the script whose $CHILDPROOF_TEST_PORTS is ports and
// whose $WORK is work (TestScript's test-free-port command, which runs in
// the test binary).
func PortOf(ports, work string) (int, error) {
	list := strings.Split(ports, ",")
	if list[0] == "" {
		return freeport.FreePort()
	}
	// Counted in the script's $WORK: a script may call it from several
	// directories.
	counter := filepath.Join(work, ".test-free-port")
	used, _ := os.ReadFile(counter)
	n := strings.Count(string(used), "\n")
	if n >= len(list) {
		return 0, fmt.Errorf("test-free-port: this script took its %d ports already (scripthelper.Ports)", len(list))
	}
	f, err := os.OpenFile(counter, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.WriteString(list[n] + "\n"); err != nil {
		return 0, err
	}
	return strconv.Atoi(list[n])
}

// exists reports whether path exists (the helper's state gates).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// GOOS is the platform childproof acts as in the test binary and the
// scripts' build: CHILDPROOF_TEST_GOOS (scripts simulate macOS and Windows
// with it), else this one.
func GOOS() string {
	if goos := os.Getenv("CHILDPROOF_TEST_GOOS"); goos != "" {
		return goos
	}
	return runtime.GOOS
}
