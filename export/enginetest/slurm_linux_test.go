package enginetest

import (
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/childproof/childproof/internal/freeport"
	"github.com/childproof/childproof/launcher/launchertest"
	"golang.org/x/sys/unix"
)

// slurmCluster is a single-node SLURM cluster of this test: munged,
// slurmctld and slurmd in the foreground, every file in dir, its own ports.
type slurmCluster struct {
	dir string
	env []string // SLURM_CONF for the client commands
	// gpu: the node has one gres/gpu (a fake device file).
	gpu bool
	// netns is the network namespace the client commands run in ("" the
	// test's own): a multi-node cluster's hub.
	netns                string
	munged, ctld, slurmd *daemon
	jobs                 []string
}

var slurmPrograms = map[string]string{
	"munged": "munge", "slurmctld": "slurmctld", "slurmd": "slurmd",
	"sbatch": "slurm-client", "scontrol": "slurm-client", "sinfo": "slurm-client", "scancel": "slurm-client",
}

// startSlurm brings up the cluster and tears it down, by pid, at the end
// of the test: every job cancelled, the daemons stopped, and what they
// left (slurmstepd, a job's processes) killed.
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	c, mu := newSlurmCluster(t, slurmPrograms)
	dir := c.dir
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	sock := c.startMunge(t, mu)

	// A fake GPU: gres/gpu wants a character device; SLURM then sets
	// CUDA_VISIBLE_DEVICES and friends for a step that asks for it.
	gres := ""
	dev := filepath.Join(dir, "fakegpu0")
	if err := unix.Mknod(dev, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))); err == nil {
		c.gpu = true
		gres = " Gres=gpu:1"
		writeFiles(t, dir, map[string]string{"gres.conf": "NodeName=localhost Name=gpu File=" + dev + "\n"})
	} else {
		t.Logf("slurm: no fake GPU (mknod: %v)", err)
	}
	ctldPort, slurmdPort := launchertest.FreePort(t), launchertest.FreePort(t)
	srunLo := freeRange(t, 10)
	conf := fmt.Sprintf(`ClusterName=childproof
SlurmctldHost=%[1]s
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
SrunPortRange=%[5]d-%[6]d
StateSaveLocation=%[2]s/state
SlurmdSpoolDir=%[2]s/spool
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd.pid
SlurmctldLogFile=%[2]s/slurmctld.log
SlurmdLogFile=%[2]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AuthType=auth/munge
AuthInfo=socket=%[7]s
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
GresTypes=gpu
NodeName=localhost NodeHostname=%[1]s CPUs=2%[8]s State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=10 State=UP
`, host, dir, ctldPort, slurmdPort, srunLo, srunLo+9, sock, gres)
	writeFiles(t, dir, map[string]string{"slurm.conf": conf})
	c.ctld = startDaemon(t, "slurmctld", nil, c.env, "slurmctld", "-D", "-i")
	c.slurmd = startDaemon(t, "slurmd", nil, c.env, "slurmd", "-D", "-N", "localhost")
	c.cancelJobsAtEnd(t)
	waitFor(t, 60*time.Second, "the node idle in sinfo", func() (bool, string) {
		for _, d := range []*daemon{c.ctld, c.slurmd} {
			if d.exited() {
				t.Fatalf("%s exited:\n%s\n%s", d.name, d.output(), c.logs())
			}
		}
		out, err := c.command("sinfo", "-h", "-o", "%t").CombinedOutput()
		return err == nil && strings.TrimSpace(string(out)) == "idle", string(out)
	})
	return c
}

// cancelJobsAtEnd cancels every job of the test, and waits for each to
// end, before the daemons stop (cleanups run last first).
func (c *slurmCluster) cancelJobsAtEnd(t *testing.T) {
	t.Cleanup(func() {
		for _, id := range c.jobs {
			_ = c.command("scancel", "-s", "KILL", id).Run()
		}
		for _, id := range c.jobs {
			deadline := time.Now().Add(15 * time.Second)
			for pause := 50 * time.Millisecond; time.Now().Before(deadline); pause = min(pause*3/2, 250*time.Millisecond) {
				if st, _ := c.jobState(id); isFinal(st) {
					break
				}
				time.Sleep(pause)
			}
		}
	})
}

// newSlurmCluster checks what a cluster needs (root, programs, the munge
// user, a subreaper), makes its directory and tears down, by pid, what its
// jobs left at the end of the test.
func newSlurmCluster(t *testing.T, programs map[string]string) (*slurmCluster, *user.User) {
	t.Helper()
	needRoot(t)
	needPrograms(t, programs)
	mu, err := user.Lookup("munge")
	if err != nil {
		t.Skip("no munge user (apt-get install munge)")
	}
	if err := subreaper(); err != nil {
		t.Skipf("cannot become a child subreaper to find what slurmd leaves: %v", err)
	}
	dir, err := os.MkdirTemp("", "childproof-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	c := &slurmCluster{dir: dir, env: []string{"SLURM_CONF=" + filepath.Join(dir, "slurm.conf")}}
	t.Cleanup(func() {
		if left := live(descendants(nil)); len(left) > 0 {
			t.Errorf("slurm: left running after the daemons stopped (killed now): %s", describe(left))
		}
		reapOrphans() // and reap the zombies of what slurmd daemonized
		// A job submitted without TMPDIR (--export=NONE) kept its state
		// under /tmp.
		for _, id := range c.jobs {
			olds, _ := filepath.Glob(filepath.Join("/tmp", fmt.Sprintf("childproof-%d", os.Geteuid()), "slurm-"+id+".*"))
			for _, o := range olds {
				os.RemoveAll(o)
			}
		}
		os.RemoveAll(dir)
	})
	return c, mu
}

// startMunge starts munged in the root namespace with a key of this
// cluster's and its socket under c.dir (a file path: every network
// namespace reaches it) and returns the socket's path.
func (c *slurmCluster) startMunge(t *testing.T, mu *user.User) string {
	t.Helper()
	dir := c.dir
	// munged checks that every directory up to its socket may be entered
	// by all, and wants its key and socket directory its own.
	uid, _ := strconv.Atoi(mu.Uid)
	gid, _ := strconv.Atoi(mu.Gid)
	mdir := filepath.Join(dir, "munge")
	for _, d := range []string{dir, mdir, filepath.Join(dir, "state"), filepath.Join(dir, "spool"), filepath.Join(dir, "out"), filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 128)
	_, _ = rand.Read(key)
	keyFile := filepath.Join(mdir, "munge.key")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{mdir, keyFile} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(mdir, "munge.socket")
	c.munged = startDaemon(t, "munged", &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil,
		"munged", "-F", "--key-file="+keyFile, "--socket="+sock, "--pid-file="+filepath.Join(mdir, "munged.pid"),
		"--seed-file="+filepath.Join(mdir, "munged.seed"), "--log-file="+filepath.Join(mdir, "munged.log"))
	waitFor(t, 10*time.Second, "munged's socket", func() (bool, string) {
		if c.munged.exited() {
			t.Fatalf("munged exited:\n%s", c.munged.output())
		}
		_, err := os.Stat(sock)
		return err == nil, fmt.Sprint(err)
	})

	return sock
}

// freeRange returns the first of n consecutive free ports, below the
// ephemeral range (from launchertest.FreePort).
func freeRange(t *testing.T, n int) int {
	t.Helper()
	lo, err := freeport.FreeRange(n)
	if err != nil {
		t.Fatal(err)
	}
	return lo
}

// command is a SLURM client command against this cluster.
func (c *slurmCluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	if c.netns != "" {
		// A multi-node cluster's clients run in its hub namespace.
		cmd = exec.Command("nsenter", append([]string{"--net=/run/netns/" + c.netns, name}, args...)...)
	}
	cmd.Env = append(os.Environ(), c.env...)
	return cmd
}

// logs returns the daemons' log files, for a failure message.
func (c *slurmCluster) logs() string {
	var b strings.Builder
	for _, f := range []string{"slurmctld.log", "slurmd.log"} {
		data, _ := os.ReadFile(filepath.Join(c.dir, f))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "== %s (tail)\n%s\n", f, strings.Join(lines, "\n"))
	}
	return b.String()
}

// submit sbatches script (its text; args follow it) with env added to
// the submitting environment (which also lacks every name in unset), and
// returns the job id.
func (c *slurmCluster) submit(t *testing.T, script string, env, unset []string, sbatchArgs []string, args ...string) string {
	t.Helper()
	f, err := os.CreateTemp(c.dir, "job-*.sbatch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(script); err != nil {
		t.Fatal(err)
	}
	f.Close()
	argv := append([]string{"--parsable", "--output=" + filepath.Join(c.dir, "out", "%j.out")}, sbatchArgs...)
	argv = append(append(argv, f.Name()), args...)
	cmd := c.command("sbatch", argv...)
	// The step's state dir (${TMPDIR:-/tmp}/childproof-UID/slurm-JOB.STEP)
	// goes into the cluster's directory: job ids start at 1 in every
	// cluster, so /tmp would hold the last run's.
	cmd.Env = withoutNames(append(append(cmd.Env, "TMPDIR="+filepath.Join(c.dir, "tmp")), env...), unset)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v\n%s", err, out)
	}
	id := strings.TrimSpace(strings.Split(string(out), ";")[0])
	c.jobs = append(c.jobs, id)
	return id
}

// withoutNames drops the entries of env whose name is in names.
func withoutNames(env, names []string) []string {
	var out []string
	for _, kv := range env {
		n, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, u := range names {
			keep = keep && n != u
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

var (
	jobStateRE = regexp.MustCompile(`\bJobState=(\S+)`)
	exitCodeRE = regexp.MustCompile(`\bExitCode=(\d+):(\d+)`)
)

// jobState returns the job's state and exit code ("2:0") as slurmctld
// records them (scontrol show job; MinJobAge keeps finished jobs).
func (c *slurmCluster) jobState(id string) (state, exit string) {
	out, err := c.command("scontrol", "show", "job", "-o", id).CombinedOutput()
	if err != nil {
		return "", ""
	}
	if m := jobStateRE.FindSubmatch(out); m != nil {
		state = string(m[1])
	}
	if m := exitCodeRE.FindSubmatch(out); m != nil {
		exit = string(m[1]) + ":" + string(m[2])
	}
	return state, exit
}

func isFinal(state string) bool {
	switch state {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED":
		return true
	}
	return false
}

// wait waits for the job to end and returns its final state and exit code.
func (c *slurmCluster) wait(t *testing.T, id string, timeout time.Duration) (state, exit string) {
	t.Helper()
	waitFor(t, timeout, "job "+id+" to end", func() (bool, string) {
		state, exit = c.jobState(id)
		return isFinal(state), state + " " + c.output(id)
	})
	return state, exit
}

// output returns the job's output file so far.
func (c *slurmCluster) output(id string) string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "out", id+".out"))
	return string(b)
}

// waitOutput waits until the job's output matches re (failing if the job
// ends first) and returns the output. The output is read at each poll;
// whether the job ended is asked of slurmctld at most every
// jobStateEvery.
func (c *slurmCluster) waitOutput(t *testing.T, id string, re string, timeout time.Duration) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	var out string
	var asked time.Time
	waitFor(t, timeout, fmt.Sprintf("job %s's output to match %q", id, re), func() (bool, string) {
		out = c.output(id)
		if rx.MatchString(out) {
			return true, ""
		}
		if time.Since(asked) < jobStateEvery {
			return false, out
		}
		asked = time.Now()
		if st, _ := c.jobState(id); isFinal(st) {
			// What it wrote just before it ended counts: read it again.
			if out = c.output(id); rx.MatchString(out) {
				return true, ""
			}
			t.Fatalf("job %s ended (%s) before its output matched %q:\n%s", id, st, re, out)
		}
		return false, out
	})
	return out
}

// jobStateEvery is how often waitOutput asks whether the job ended: each
// ask is a scontrol (under nsenter for a multi-node cluster), together 14%
// of this package's CPU when it was asked at every poll, most of it while
// torch's ranks start.
const jobStateEvery = time.Second

// cancel scancels the job (with scancel's flags) and waits for it to end.
func (c *slurmCluster) cancel(t *testing.T, id string, flags ...string) (state, exit string) {
	t.Helper()
	if out, err := c.command("scancel", append(flags, id)...).CombinedOutput(); err != nil {
		t.Fatalf("scancel %s: %v\n%s", id, err, out)
	}
	return c.wait(t, id, 30*time.Second)
}

// portFree waits until nothing listens on port any more.
func portFree(t *testing.T, port int, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, fmt.Sprintf("port %d free", port), func() (bool, string) {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return false, err.Error()
		}
		ln.Close()
		return true, ""
	})
}
