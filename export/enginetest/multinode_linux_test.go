package enginetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/launchertest"
)

// multiNodePrograms are what a cluster of several nodes needs besides a
// single node's: namespaces and links (iproute2, util-linux) and srun.
var multiNodePrograms = map[string]string{
	"munged": "munge", "slurmctld": "slurmctld", "slurmd": "slurmd", "srun": "slurm-client",
	"sbatch": "slurm-client", "scontrol": "slurm-client", "sinfo": "slurm-client", "scancel": "slurm-client",
	"ip": "iproute2", "nsenter": "util-linux", "unshare": "util-linux",
}

// mnNet is the test's own network: a hub namespace holding a bridge at
// 10.77.0.1 (and slurmctld), and one namespace per node at 10.77.0.1N on
// an eth0 joined to the bridge by a veth pair. The addresses exist only
// inside these namespaces.
type mnNet struct {
	hub   string
	nodes []string // namespace names, node1 first
}

func (n *mnNet) nodeAddr(i int) string { return fmt.Sprintf("10.77.0.%d", 11+i) }

// ip runs ip(8) with args; a failure skips the test (namespaces or veth
// links cannot be made here).
func mustIP(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Skipf("cannot build the test's network (ip %s): %v: %s", strings.Join(args, " "), err, out)
	}
}

// startNet makes the namespaces and links and deletes them at the end of
// the test (after every process in them is gone: cleanups run last first).
func startNet(t *testing.T, nodes int) *mnNet {
	t.Helper()
	tag := strconv.Itoa(os.Getpid() % 100000)
	n := &mnNet{hub: "cpmn" + tag + "h"}
	mustIP(t, "netns", "add", n.hub)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", n.hub).Run() })
	mustIP(t, "-n", n.hub, "link", "set", "lo", "up")
	mustIP(t, "-n", n.hub, "link", "add", "br0", "type", "bridge")
	mustIP(t, "-n", n.hub, "addr", "add", "10.77.0.1/24", "dev", "br0")
	mustIP(t, "-n", n.hub, "link", "set", "br0", "up")
	for i := range nodes {
		ns := fmt.Sprintf("cpmn%sn%d", tag, i+1)
		n.nodes = append(n.nodes, ns)
		mustIP(t, "netns", "add", ns)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
		hubEnd, nodeEnd := fmt.Sprintf("cp%sh%d", tag, i+1), fmt.Sprintf("cp%sn%d", tag, i+1)
		mustIP(t, "link", "add", hubEnd, "type", "veth", "peer", "name", nodeEnd)
		mustIP(t, "link", "set", hubEnd, "netns", n.hub)
		mustIP(t, "link", "set", nodeEnd, "netns", ns)
		mustIP(t, "-n", n.hub, "link", "set", hubEnd, "master", "br0", "up")
		mustIP(t, "-n", ns, "link", "set", nodeEnd, "name", "eth0")
		mustIP(t, "-n", ns, "addr", "add", n.nodeAddr(i)+"/24", "dev", "eth0")
		mustIP(t, "-n", ns, "link", "set", "eth0", "up")
		mustIP(t, "-n", ns, "link", "set", "lo", "up")
	}
	return n
}

// startMultiNode brings up a SLURM cluster of nodes nodes on this machine:
// munged in the root namespace (its socket is a file path every namespace
// reaches), slurmctld in the hub, one slurmd per node namespace with its
// own hostname (unshare --uts), and the client commands in the hub.
// nsenter --net, not ip netns exec: the latter remounts /sys and hides the
// cgroup mount, and slurmd exits.
func startMultiNode(t *testing.T, nodes int) (*slurmCluster, *mnNet) {
	t.Helper()
	c, mu := newSlurmCluster(t, multiNodePrograms)
	net := startNet(t, nodes)
	c.netns = net.hub
	sock := c.startMunge(t, mu)
	var nodeLines []string
	for i := range nodes {
		name := fmt.Sprintf("node%d", i+1)
		if err := os.MkdirAll(filepath.Join(c.dir, "spool", name), 0o755); err != nil {
			t.Fatal(err)
		}
		nodeLines = append(nodeLines, fmt.Sprintf("NodeName=%s NodeAddr=%s NodeHostname=%s CPUs=2 State=UNKNOWN", name, net.nodeAddr(i), name))
	}
	ctldPort, slurmdPort := launchertest.FreePort(t), launchertest.FreePort(t)
	srunLo := freeRange(t, 10)
	conf := fmt.Sprintf(`ClusterName=childproofmn
SlurmctldHost=mnctl(10.77.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SrunPortRange=%[4]d-%[5]d
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool/%%n
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd-%%n.pid
SlurmctldLogFile=%[1]s/slurmctld.log
SlurmdLogFile=%[1]s/slurmd-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AuthType=auth/munge
AuthInfo=socket=%[6]s
CredType=cred/munge
MpiDefault=none
ReturnToService=2
MinJobAge=600
KillWait=5
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
%[7]s
PartitionName=debug Nodes=ALL Default=YES MaxTime=10 State=UP
`, c.dir, ctldPort, slurmdPort, srunLo, srunLo+9, sock, strings.Join(nodeLines, "\n"))
	writeFiles(t, c.dir, map[string]string{"slurm.conf": conf})
	c.ctld = startDaemon(t, "slurmctld", nil, c.env, "nsenter", "--net=/run/netns/"+net.hub,
		"unshare", "--uts", "sh", "-c", "hostname mnctl && exec slurmctld -D -i")
	var slurmds []*daemon
	for i, ns := range net.nodes {
		name := fmt.Sprintf("node%d", i+1)
		slurmds = append(slurmds, startDaemon(t, "slurmd "+name, nil, c.env, "nsenter", "--net=/run/netns/"+ns,
			"unshare", "--uts", "sh", "-c", "hostname "+name+" && exec slurmd -D -N "+name))
	}
	c.slurmd = slurmds[0]
	c.cancelJobsAtEnd(t)
	want := strings.Repeat("idle\n", nodes)
	waitFor(t, 60*time.Second, "every node idle in sinfo", func() (bool, string) {
		for _, d := range append([]*daemon{c.ctld}, slurmds...) {
			if d.exited() {
				t.Fatalf("%s exited:\n%s\n%s", d.name, d.output(), c.logs())
			}
		}
		out, err := c.command("sinfo", "-h", "-N", "-o", "%t").CombinedOutput()
		return err == nil && string(out) == want, string(out)
	})
	return c, net
}

const multiNodeTrain = `import os, socket, sys, time
import torch.distributed as dist
dist.init_process_group("gloo")
t = __import__("torch").ones(1)
dist.all_reduce(t)
print("rank %s of %s on %s: sum %d" % (dist.get_rank(), dist.get_world_size(), socket.gethostname(), int(t.item())), flush=True)
while True:
    time.sleep(3600)
`

// TestSlurmMultiNode runs exported jobs over two nodes of a real cluster:
// each node's task runs childproof run for the ranks on that node and
// verifies every one of them there; the job's output shows each node's
// verdict (srun --label), a value that differs on one node fails that
// node's task (exit 3) and the job, and a round's --set is proven on every
// rank of every node.
func TestSlurmMultiNode(t *testing.T) {
	c, _ := startMultiNode(t, 2)
	proj := t.TempDir()
	if err := os.Chmod(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	port := launchertest.FreePort(t)
	writeFiles(t, proj, map[string]string{
		"spec.hcl": fmt.Sprintf(`variable "port" {
  default = %d
}
launch "api" {
  dispatch = ["node.sh", "${var.port}"]
  env      = { MOCK_LLM_KEY = env("MOCK_LLM_KEY") }
  require  = ["MOCK_LLM_KEY"]
  worker { comm = "mock-llm" }
  port "http" {
    number = var.port
  }
  ready { http = "/healthz" }
  slurm {
    nodes = 2
  }
}
`, port),
		// A node's own settings, when it has any: only node2 has a file.
		"node.sh": fmt.Sprintf(`#!/bin/bash
f="%s/$(hostname).env"
if [ -f "$f" ]; then set -a; . "$f"; set +a; fi
exec %s --addr "127.0.0.1:$1"
`, proj, mockLLM),
	})
	spec := filepath.Join(proj, "spec.hcl")
	script := export(t, "--to", "slurm", spec+":api", "--childproof", bin)
	for _, want := range []string{"#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=1", "srun --nodes=2 --ntasks-per-node=1 --label --kill-on-bad-exit=1"} {
		if !strings.Contains(script, want) {
			t.Fatalf("the exported job lacks %q:\n%s", want, script)
		}
	}
	key := "MOCK_LLM_KEY=" + slurmCanary
	stateDirs := func(id string) []string {
		ds, _ := filepath.Glob(filepath.Join(c.dir, "tmp", fmt.Sprintf("childproof-%d", os.Geteuid()), "slurm-"+id+".0.*"))
		return ds
	}

	t.Run("every node verified", func(t *testing.T) {
		id := c.submit(t, script, []string{key}, nil, nil)
		out := c.waitOutput(t, id, `(?ms)^0: verified api.*^1: verified api|(?ms)^1: verified api.*^0: verified api`, 120*time.Second)
		for _, task := range []string{"0", "1"} {
			if !regexp.MustCompile(`(?m)^` + task + `: .*MOCK_LLM_KEY present, matches`).MatchString(out) {
				t.Errorf("task %s did not verify MOCK_LLM_KEY:\n%s", task, out)
			}
		}
		// One state dir per task, each holding its node's launch.
		if ds := stateDirs(id); len(ds) != 2 {
			t.Errorf("state dirs of job %s: %v, want one per task", id, ds)
		}
		if st, _ := c.jobState(id); st != "RUNNING" {
			t.Errorf("job %s is %s, want RUNNING", id, st)
		}
		if st, _ := c.cancel(t, id); st != "CANCELLED" {
			t.Errorf("after scancel: %s", st)
		}
		if strings.Contains(c.output(id), slurmCanary) {
			t.Errorf("job %s's output holds the secret's value", id)
		}
	})

	t.Run("a round's delta on every node", func(t *testing.T) {
		id := c.submit(t, script, []string{key}, nil, nil, "--set", "HF_HUB_ENABLE_HF_TRANSFER=0")
		out := c.waitOutput(t, id, `(?ms)^0: verified api.*^1: verified api|(?ms)^1: verified api.*^0: verified api`, 120*time.Second)
		for _, task := range []string{"0", "1"} {
			if !regexp.MustCompile(`(?m)^` + task + `: .*HF_HUB_ENABLE_HF_TRANSFER present, matches`).MatchString(out) {
				t.Errorf("task %s did not prove the round's delta:\n%s", task, out)
			}
		}
		c.cancel(t, id)
	})

	t.Run("a value that differs on one node fails the job", func(t *testing.T) {
		writeFiles(t, proj, map[string]string{"node2.env": "MOCK_LLM_KEY=another-value-on-node2\n"})
		defer os.Remove(filepath.Join(proj, "node2.env"))
		// --no-lint: the per-node file is what lint cannot see; the
		// proof on the node must catch it.
		id := c.submit(t, script, []string{key}, nil, nil, "--no-lint")
		st, ec := c.wait(t, id, 120*time.Second)
		out := c.output(id)
		// node2's task exits 3; srun then ends node1's task, which exits
		// 3 too when it was verified already, or 130 (interrupted) when it
		// was still waiting at load; the job's code is srun's, the highest
		// of its tasks'.
		if st != "FAILED" || !(strings.HasPrefix(ec, "3:") || strings.HasPrefix(ec, "130:")) ||
			!strings.Contains(out, "srun: error: node2: task 1: Exited with exit code 3") {
			t.Errorf("job %s: %s %s, want FAILED with node2's task exiting 3:\n%s", id, st, ec, out)
		}
		if !regexp.MustCompile(`(?m)^1: .*MOCK_LLM_KEY`).MatchString(out) || !strings.Contains(out, "node2") {
			t.Errorf("the job's output does not name node2's task and the variable:\n%s", out)
		}
		if strings.Contains(out, "another-value-on-node2") || strings.Contains(out, slurmCanary) {
			t.Errorf("job %s's output holds a value", id)
		}
	})

	t.Run("torchrun across nodes", func(t *testing.T) {
		if _, err := exec.LookPath("torchrun"); err != nil {
			t.Skip("torchrun not installed (apt-get install python3-torch)")
		}
		rdzv := launchertest.FreePort(t)
		writeFiles(t, proj, map[string]string{
			"train.py": multiNodeTrain,
			"torch.hcl": fmt.Sprintf(`launch "ddp" {
  command = ["/usr/bin/python3", "-m", "torch.distributed.run", "--nnodes=2", "--nproc_per_node=2",
             "--node_rank=${env("SLURM_NODEID")}", "--master_addr=${env("MASTER_ADDR")}", "--master_port=%d", "--redirects=1", "--tee=1",
             "train.py"]
  env     = { APP_TOKEN = env("APP_TOKEN"), GLOO_SOCKET_IFNAME = "eth0", TMPDIR = "%s/tmp" }
  require = ["APP_TOKEN"]
  worker {
    comm  = "python3"
    count = 2
  }
  slurm {
    nodes = 2
  }
  ready {
    timeout = "180s" # torch's imports take tens of seconds at load
  }
}
`, rdzv, proj),
		})
		if err := os.MkdirAll(filepath.Join(proj, "tmp"), 0o755); err != nil {
			t.Fatal(err)
		}
		s := export(t, "--to", "slurm", filepath.Join(proj, "torch.hcl")+":ddp", "--childproof", bin)
		id := c.submit(t, s, []string{"APP_TOKEN=" + slurmCanary}, nil, nil)
		out := c.waitOutput(t, id, `(?ms)^0: verified ddp.*^1: verified ddp|(?ms)^1: verified ddp.*^0: verified ddp`, 240*time.Second)
		// Every rank's all_reduce summed over both nodes (one per rank):
		// torchrun keeps each rank's stdout under the launch's TMPDIR.
		waitFor(t, 120*time.Second, "every rank's all_reduce over both nodes", func() (bool, string) {
			logs, _ := filepath.Glob(filepath.Join(proj, "tmp", "torchelastic_*", "*", "attempt_0", "*", "stdout.log"))
			var all string
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				all += string(b)
			}
			return strings.Count(all, ": sum 4") == 4, all
		})
		for _, task := range []string{"0", "1"} {
			if n := len(regexp.MustCompile(`(?m)^`+task+`: .*APP_TOKEN present, matches`).FindAllString(out, -1)); n < 2 {
				t.Errorf("task %s verified APP_TOKEN on %d ranks, want 2:\n%s", task, n, out)
			}
		}
		// A rank killed on node2 ends the whole job (torchrun's agent fails
		// its group, childproof run passes its status on, srun's
		// --kill-on-bad-exit ends node1's task); the cluster's teardown then
		// finds nothing left in any namespace.
		rank := rankOfNode(t, "1")
		t.Logf("SIGKILL to a rank of node2: %s", describe([]int{rank}))
		if err := syscall.Kill(rank, syscall.SIGKILL); err != nil {
			t.Fatalf("kill rank %d: %v", rank, err)
		}
		if st, ec := c.wait(t, id, 120*time.Second); st != "FAILED" {
			t.Errorf("job %s after a rank on node2 (pid %d) was killed: %s %s, want FAILED:\n%s", id, rank, st, ec, c.output(id))
		}
		if strings.Contains(c.output(id), slurmCanary) {
			t.Errorf("job %s's output holds the secret's value", id)
		}
	})
}

// rankOfNode returns the pid of a torchrun rank of node rank nodeRank (its
// environment says GROUP_RANK), found below this test process (the
// subreaper of what slurmd started): another test run's ranks on the
// machine say the same.
func rankOfNode(t *testing.T, nodeRank string) int {
	t.Helper()
	for _, pid := range descendants(nil) {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			continue
		}
		vars := strings.Split(string(env), "\x00")
		if slices.Contains(vars, "GROUP_RANK="+nodeRank) && slices.ContainsFunc(vars, func(v string) bool { return strings.HasPrefix(v, "LOCAL_RANK=") }) {
			return pid
		}
	}
	t.Fatalf("no rank of node rank %s below the test process", nodeRank)
	return 0
}
