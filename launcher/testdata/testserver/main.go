// Command testserver is the HTTP server of launcher/group's and
// launchertest's tests, and the log relay of their detached launches
// (its main calls launcher.RelayMain first). They build it once per test
// binary (internal/testsupport.BuildProgram), without the race detector:
// a race binary costs about 0.1 CPU-second to start, and each run of
// those tests starts dozens of servers and relays.
//
// Usage: testserver serve ADDR [DEP_ADDR]
//
// It prints "serving on ADDR" once listening and answers every request
// "ok". With DEP_ADDR it first connects there and exits 3 when that
// fails (the launch it depends on is down). Environment:
// SRV_IGNORE_TERM=1 and SRV_IGNORE_INT=1 ignore SIGTERM and SIGINT;
// SRV_SAY is a line printed once listening, SRV_LATE one printed 200 ms
// later; SRV_FAIL_FIRST=N answers the first N requests 503.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/childproof/childproof/launcher"
)

func main() {
	launcher.RelayMain()
	if len(os.Args) < 3 || len(os.Args) > 4 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: testserver serve ADDR [DEP_ADDR]")
		os.Exit(2)
	}
	if os.Getenv("SRV_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	if os.Getenv("SRV_IGNORE_INT") == "1" {
		signal.Ignore(os.Interrupt)
	}
	if len(os.Args) == 4 {
		c, err := net.Dial("tcp", os.Args[3])
		if err != nil {
			fmt.Println("dependency down:", err)
			os.Exit(3)
		}
		c.Close()
	}
	ln, err := net.Listen("tcp", os.Args[2])
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(2)
	}
	fmt.Println("serving on", ln.Addr())
	if say := os.Getenv("SRV_SAY"); say != "" {
		fmt.Println(say)
	}
	if late := os.Getenv("SRV_LATE"); late != "" {
		go func() {
			time.Sleep(200 * time.Millisecond)
			fmt.Println(late)
		}()
	}
	failFirst, _ := strconv.Atoi(os.Getenv("SRV_FAIL_FIRST"))
	var served atomic.Int64
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) <= int64(failFirst) {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "warming up")
			return
		}
		fmt.Fprintln(w, "ok")
	}))
	os.Exit(1)
}
