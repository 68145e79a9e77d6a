package sockdiag

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// TestHelperNetNSListener is not a test: run by TestLookupForOtherNetNS
// inside a new network namespace, it listens on the port it is given,
// says so, and waits for its stdin to close.
func TestHelperNetNSListener(t *testing.T) {
	port := os.Getenv("SOCKDIAG_HELPER_PORT")
	if port == "" {
		t.Skip("helper process")
	}
	ln, err := net.Listen("tcp4", "0.0.0.0:"+port)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	defer ln.Close()
	fmt.Println("listening")
	bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}

func TestLookupForOtherNetNS(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: a network namespace of the test's own (unshare --net)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) not installed")
	}
	// A port free here is free in the new namespace too: it has no sockets.
	const port = 18599
	cmd := exec.Command(unshare, "--net", os.Args[0], "-test.run=^TestHelperNetNSListener$")
	cmd.Env = append(os.Environ(), "SOCKDIAG_HELPER_PORT="+strconv.Itoa(port))
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skipf("unshare --net: %v", err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "listening\n" {
		t.Skipf("the helper could not listen in a new network namespace: %q", line)
	}
	pid := cmd.Process.Pid
	if !OtherNetNS("", pid) {
		t.Fatalf("OtherNetNS(%d) = false for a process under unshare --net", pid)
	}
	if OtherNetNS("", os.Getpid()) {
		t.Fatalf("OtherNetNS(self) = true")
	}
	here, err := Lookup("", port)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range here {
		if l.Port == port && l.Addr.String() == "0.0.0.0" {
			t.Skipf("something in this namespace listens on 0.0.0.0:%d too", port)
		}
	}
	for name, root := range map[string]string{"sock_diag in the namespace": "", "its /proc net files": "/proc/"} {
		t.Run(name, func(t *testing.T) {
			got, err := LookupFor(root, pid, port)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Port != port || got[0].Addr.String() != "0.0.0.0" {
				t.Fatalf("LookupFor(%q, %d, %d) = %v, want the helper's 0.0.0.0:%d", root, pid, port, got, port)
			}
		})
	}
	// The caller's own namespace is asked as before.
	self, err := LookupFor("", os.Getpid(), port)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range self {
		if l.Addr.String() == "0.0.0.0" {
			t.Fatalf("LookupFor(self) = %v: the other namespace's listener leaked into the caller's table", self)
		}
	}
}

// TestNsLinkIno: the namespace a live /proc/PID/ns/net link names, read
// from its target, is the inode its stat gives.
func TestNsLinkIno(t *testing.T) {
	for _, path := range []string{"/proc/self/ns/net", "/proc/thread-self/ns/net", "/proc/1/ns/net"} {
		want, err := nsIno(path)
		if err != nil {
			continue // (pid 1's link is unreadable without privilege)
		}
		got, err := nsLinkIno(path)
		if err != nil || got != want {
			t.Fatalf("nsLinkIno(%s) = %d, %v; its stat's inode is %d", path, got, err, want)
		}
	}
	if _, err := nsLinkIno("/proc/self/ns/nonesuch"); err == nil {
		t.Fatal("nsLinkIno of a missing link: no error")
	}
}
