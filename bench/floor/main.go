// Command floor is the benchmark's floor as a program: a bare Go fork/exec of
// a server plus a 1 ms connect-poll loop. It prints "ready" once the server
// answers, then stops its own child and exits. Usage: floor ADDR SERVER ARG…
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: floor ADDR SERVER ARG…")
		os.Exit(2)
	}
	addr := os.Args[1]
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Env = []string{"MOCK_LLM_KEY=bench-key", "PATH=/usr/bin:/bin"}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			fmt.Println("ready")
			break
		}
		time.Sleep(time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
}
