// Command initcount is a program that imports launcher without calling
// RelayMain: its init counts its runs (a line in the file "inits" next
// to its binary), then it makes a detached launch and reports.
//
// Usage: initcount STATE_DIR
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
	"golang.org/x/sys/unix"
)

func init() {
	exe, _ := os.Executable()
	f, err := os.OpenFile(filepath.Join(filepath.Dir(exe), "inits"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
}

func main() {
	// A descriptor of the caller's without close-on-exec: the worker must
	// not get it, and Start must leave it as it was.
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil {
		fmt.Println("pipe:", err)
		os.Exit(2)
	}
	opts := launcher.Options{StateDir: os.Args[1], Detach: true}
	la, err := launcher.Start(context.Background(), &schema.Launch{Name: "initcount", Command: []string{"/bin/sleep", "60"}, Worker: schema.Worker{Comm: "sleep"}}, opts)
	if err != nil {
		var e *launcher.Error
		if errors.As(err, &e) {
			fmt.Println("outcome", e.Outcome)
		}
		fmt.Println("error:", err)
		os.Exit(3)
	}
	defer la.Stop(context.Background())
	flags, _ := unix.FcntlInt(uintptr(p[1]), unix.F_GETFD, 0)
	fmt.Println("caller fd cloexec", flags&unix.FD_CLOEXEC != 0)
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(la.Pid()) + "/fd")
	var fds []string
	for _, e := range ents {
		fds = append(fds, e.Name())
	}
	fmt.Println("worker fds", strings.Join(fds, ","))
	if la.Record.Relay != nil {
		exe, _ := os.Readlink("/proc/" + strconv.Itoa(la.Record.Relay.Pid) + "/exe")
		fmt.Println("relay exe", exe)
	}
}
