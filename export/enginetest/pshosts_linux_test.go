package enginetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/launchertest"
)

// TestPsOverSSH: childproof ps --host takes the census of launches whose
// state dirs are node-local. Two node namespaces each run sshd in a mount
// namespace of its own, where one path (st) is that node's own directory;
// a launch is started on each node over ssh, and one ps from the hub lists
// both, each under its host.
func TestPsOverSSH(t *testing.T) {
	t.Parallel() // beside TestSystemd only (see doc.go)
	needRoot(t)
	needPrograms(t, map[string]string{"sshd": "openssh-server", "ssh": "openssh-client", "ssh-keygen": "openssh-client",
		"ip": "iproute2", "nsenter": "util-linux", "unshare": "util-linux"})
	if err := subreaper(); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	net := startNet(t, 2)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	common := filepath.Join(dir, "st") // each node's own state dir, at one path
	for _, d := range []string{common, filepath.Join(dir, "node1"), filepath.Join(dir, "node2")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(dir, "id")
	for _, k := range []string{key, filepath.Join(dir, "host_key")} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, _ := os.ReadFile(key + ".pub")
	writeFiles(t, dir, map[string]string{
		"authorized_keys": string(pub),
		"client.conf":     fmt.Sprintf("Host *\n  User root\n  IdentityFile %s\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  BatchMode yes\n  LogLevel ERROR\n  ConnectTimeout 10\n", key),
	})
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation dir
		t.Skipf("no /run/sshd: %v", err)
	}
	// Each node's root has an empty home (a fresh node's): bash reads
	// ~/.bashrc for every command sshd runs, and this machine's ran pyenv
	// init, about 180 processes and 5 s at load 25, per ssh command.
	home := ""
	if u, err := user.LookupId("0"); err == nil && u.HomeDir != "" && u.HomeDir != "/" {
		home = filepath.Join(dir, "home")
		if err := os.Mkdir(home, 0o700); err != nil {
			t.Fatal(err)
		}
		home = fmt.Sprintf(" && mount --bind %s %s", home, u.HomeDir)
	}
	for i, ns := range net.nodes {
		name := fmt.Sprintf("node%d", i+1)
		conf := filepath.Join(dir, name+".sshd.conf")
		writeFiles(t, dir, map[string]string{name + ".sshd.conf": fmt.Sprintf(`ListenAddress %s
Port 22
HostKey %s/host_key
PidFile %s/%s.sshd.pid
AuthorizedKeysFile %s/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
`, net.nodeAddr(i), dir, dir, name, dir)})
		startDaemon(t, "sshd "+name, nil, nil, "nsenter", "--net=/run/netns/"+ns, "unshare", "--mount", "--propagation", "private",
			"sh", "-c", fmt.Sprintf("mount --bind %s/%s %s%s && exec /usr/sbin/sshd -D -e -f %s", dir, name, common, home, conf))
	}
	sshEnv := append(os.Environ(), "CHILDPROOF_SSH_COMMAND=ssh -F "+filepath.Join(dir, "client.conf"))
	// hub runs a command in the hub namespace, where both nodes are reached.
	hub := func(args ...string) ([]byte, error) {
		cmd := exec.Command("nsenter", append([]string{"--net=/run/netns/" + net.hub}, args...)...)
		cmd.Env = sshEnv
		return cmd.CombinedOutput()
	}
	onNode := func(i int, command string) ([]byte, error) {
		return hub("ssh", "-F", filepath.Join(dir, "client.conf"), net.nodeAddr(i), command)
	}
	waitFor(t, 20*time.Second, "sshd on both nodes", func() (bool, string) {
		for i := range net.nodes {
			if out, err := onNode(i, "true"); err != nil {
				return false, fmt.Sprintf("%v: %s", err, out)
			}
		}
		return true, ""
	})
	port := launchertest.FreePort(t)
	writeFiles(t, dir, map[string]string{"spec.hcl": fmt.Sprintf(`launch "api" {
  command = [%q, "--addr", "127.0.0.1:%d"]
  env     = { MOCK_LLM_KEY = "not-a-secret" }
  worker { comm = "mock-llm" }
  port "http" {
    number = %d
  }
}
`, mockLLM, port, port)})
	for i := range net.nodes {
		if out, err := onNode(i, fmt.Sprintf("%s --state-dir %s run --detach %s/spec.hcl", bin, common, dir)); err != nil {
			t.Fatalf("run on node%d: %v\n%s", i+1, err, out)
		}
		t.Cleanup(func() { onNode(i, fmt.Sprintf("%s --state-dir %s stop api", bin, common)) })
	}
	hosts := []string{"ps", "--host", net.nodeAddr(0), "--host", net.nodeAddr(1), "--childproof", bin, "--state-dir", common}
	out, err := hub(append([]string{bin}, hosts...)...)
	if err != nil {
		t.Fatalf("ps --host: %v\n%s", err, out)
	}
	for i := range net.nodes {
		if !strings.Contains(string(out), "# "+net.nodeAddr(i)+": ") {
			t.Errorf("ps --host lacks node%d's group:\n%s", i+1, out)
		}
	}
	if strings.Count(string(out), "api ") != 2 || strings.Count(string(out), "alive") != 2 {
		t.Errorf("ps --host: want api alive on both hosts:\n%s", out)
	}
	out, err = hub(append([]string{bin}, append(hosts, "--format", "json")...)...)
	var census struct {
		Launches []struct {
			Name, Status, Host string
		} `json:"launches"`
	}
	if err != nil || json.Unmarshal(out, &census) != nil || len(census.Launches) != 2 {
		t.Fatalf("ps --host --format json: %v\n%s", err, out)
	}
	for i, l := range census.Launches {
		if l.Name != "api" || l.Status != "alive" || l.Host != net.nodeAddr(i) {
			t.Errorf("entry %d = %+v, want api alive on %s", i, l, net.nodeAddr(i))
		}
	}
	// A host that does not answer: said, the others listed, exit 2.
	out, err = hub(append([]string{bin}, append(hosts, "--host", "10.77.0.99")...)...)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "host 10.77.0.99") || strings.Count(string(out), "alive") != 2 {
		t.Errorf("ps with an unreachable host: %v\n%s", err, out)
	}
}
