package verify_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/launchertest"
	"github.com/childproof/childproof/verify"
)

// This checks a server that something else started, as verify --pid does:
// the process must have MODE=fast in its environment and listen on port.
// A wrong expectation fails with the problem's kind.
func ExampleVerifier_Await() {
	port, err := launchertest.Port()
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "childproof-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	st, err := launcher.OpenState(dir) // keeps the key of the digests
	if err != nil {
		fmt.Println(err)
		return
	}

	cmd := exec.Command("python3", "-m", "http.server", "--bind", "127.0.0.1", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "MODE=fast")
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()

	v := &verify.Verifier{State: st}
	ctx := context.Background()
	c := verify.CheckForPid(cmd.Process.Pid, verify.Expect{Values: map[string]string{"MODE": "fast"}}, []int{port}, "")
	r, err := v.Await(ctx, c, verify.AwaitOptions{Until: time.Now().Add(30 * time.Second)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verified:", r.Verified, "MODE matches:", *r.Env[0].Matches, "port owned:", r.Ports[0].Owned)

	c = verify.CheckForPid(cmd.Process.Pid, verify.Expect{Values: map[string]string{"MODE": "slow"}}, []int{port}, "")
	r = v.Verify(ctx, c)
	fmt.Println("verified:", r.Verified, r.Problems[0].Kind)
	// Output:
	// verified: true MODE matches: true port owned: true
	// verified: false env-mismatch
}
