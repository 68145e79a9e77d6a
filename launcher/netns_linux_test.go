package launcher

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/sockdiag"
	"golang.org/x/sys/unix"
)

// loopbackUp sets the loopback of the caller's network namespace up (a
// new namespace has it down).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// TestWorkerInOtherNetNS launches a worker into a network namespace of its
// own (a container's or a pod's shape): its port, its bind address and
// its readiness are judged in its namespace, by run, verify and ps alike.
func TestWorkerInOtherNetNS(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: unshare --net")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) not installed")
	}
	f := newFixture(t)
	l := f.spec("netns")
	l.Command = append([]string{unshare, "--net", filepath.Join(f.bin, "mock-srv")}, "helper", "netns-serve", "127.0.0.1:"+strconv.Itoa(f.port))
	la, err := f.start(t, l, true)
	if err != nil {
		if strings.Contains(err.Error(), "unshare failed") {
			t.Skipf("unshare --net refused here: %v", err)
		}
		t.Fatal(err)
	}
	r := la.Report
	if !r.Verified || r.Port == nil || !r.Port.Owned || !r.Ready || r.Worker.Comm != "mock-srv" {
		t.Fatalf("report = %+v", r)
	}
	if !sockdiag.OtherNetNS("", r.Worker.Pid) {
		t.Fatalf("worker %d is in the test's own network namespace: the test proves nothing", r.Worker.Pid)
	}
	// The caller's own table does not have it: only the worker's does.
	if ls, _ := sockdiag.Listeners(uint16(f.port)); len(ls) != 0 {
		t.Fatalf("port %d is visible in the caller's namespace: %v", f.port, ls)
	}
	r2, err := la.Verify(context.Background())
	if err != nil || !r2.Verified {
		t.Fatalf("Verify = %+v, %v", r2, err)
	}
	es, err := Census(la.opts.Proc, f.state, false)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range es {
		if e.Name != "netns" {
			continue
		}
		found = true
		if len(e.Ports) != 1 || e.Ports[0].Holder != "worker" || !strings.Contains(e.Note, "another network namespace") {
			t.Errorf("census entry = %+v, want the worker as holder and the namespace said", e)
		}
	}
	if !found {
		t.Fatalf("census has no entry netns: %+v", es)
	}
}
