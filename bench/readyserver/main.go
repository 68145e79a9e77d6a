// Command readyserver is the readiness benchmark's server: it becomes
// ready DELAY after it starts, in the way MODE says, and writes the
// moment it did (Unix nanoseconds) to STAMP. Usage: readyserver MODE
// DELAY ADDR STAMP. MODE tcp: listens at DELAY. http: listens at once,
// answers 503 until DELAY, then 200. exec: listens at once, creates
// ./ready at DELAY. log: listens at once, prints "server ready" at DELAY.
// http and exec print "startup complete" when they become ready, as most
// servers log that they are; http-silent and exec-silent print nothing.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: readyserver MODE DELAY ADDR STAMP")
		os.Exit(2)
	}
	mode, addr, stamp := os.Args[1], os.Args[3], os.Args[4]
	mode, silent := strings.CutSuffix(mode, "-silent")
	delay, err := time.ParseDuration(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	at := time.Now().Add(delay)
	var ready atomic.Bool
	mark := func() {
		now := time.Now()
		ready.Store(true)
		// The stamp is replaced whole (written beside it, then renamed),
		// so only ever a regular file of the bench's own: a rename onto
		// /dev/null replaced the device with a file, machine-wide.
		if fi, err := os.Lstat(stamp); err == nil && !fi.Mode().IsRegular() {
			return
		}
		os.WriteFile(stamp+".tmp", []byte(strconv.FormatInt(now.UnixNano(), 10)), 0o644)
		os.Rename(stamp+".tmp", stamp)
	}
	serve := func() {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Println("listen:", err)
			os.Exit(2)
		}
		go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !ready.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		}))
	}
	if mode != "tcp" {
		serve()
	}
	time.Sleep(time.Until(at))
	switch mode {
	case "tcp":
		mark() // the moment before listen(2): ready as soon as it returns
		serve()
	case "exec":
		os.WriteFile("ready", nil, 0o644)
		mark()
		if !silent {
			fmt.Println("startup complete")
		}
	case "log":
		mark()
		fmt.Println("server ready")
	default:
		mark()
		if !silent {
			fmt.Println("startup complete")
		}
	}
	select {}
}
