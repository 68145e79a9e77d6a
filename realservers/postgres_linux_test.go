package realservers

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/childproof/childproof/launcher/launchertest"
)

// TestPostgresUser is issue 23's user = "postgres": PostgreSQL refuses to
// run as root, so its launch scripts wrap it in su/runuser/sudo, which
// reset or rebuild the environment. With user = "postgres" childproof sets
// the user at exec: the server runs as postgres (verified on the worker,
// shown by ps), its environment is the spec's, and the state dir stays
// root's.
func TestPostgresUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("user = \"postgres\" needs root")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(bins) == 0 {
		t.Skip("PostgreSQL is not installed here (Debian package postgresql; .ci/run installs it)")
	}
	pgbin := filepath.Dir(bins[len(bins)-1])
	pg, err := user.Lookup("postgres")
	if err != nil {
		t.Skip("no postgres user here (the postgresql package creates it)")
	}
	uid, _ := strconv.Atoi(pg.Uid)
	gid, _ := strconv.Atoi(pg.Gid)
	// A directory the postgres user can reach (t.TempDir's parent is 0700).
	dir, err := os.MkdirTemp("", "childproof-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	for _, d := range []string{data, sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chown(d, uid, gid)
	}
	initdb := exec.Command(filepath.Join(pgbin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	initdb.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := launchertest.FreePort(t)
	spec := fmt.Sprintf(`launch "pg" {
  command = [%q, "-D", %q, "-k", %q, "-p", "%d", "-h", "127.0.0.1", "-c", "fsync=off"]
  user    = "postgres"
  env = {
    APP_TOKEN = env("APP_TOKEN")
  }
  require = ["APP_TOKEN"]
  worker {
    comm = "postgres"
  }
  port "pg" {
    number = %d
  }
  ready {
    exec    = [%q, "-h", "127.0.0.1", "-p", "%d", "-U", "postgres"]
    timeout = "30s"
  }
}
`, filepath.Join(pgbin, "postgres"), data, sock, port, port, filepath.Join(pgbin, "pg_isready"), port)
	if err := os.WriteFile(filepath.Join(dir, "childproof.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "APP_TOKEN=" + canary, "NO_COLOR=1", "CHILDPROOF_STATE_DIR=" + state}
	out, errs, code := cli(t, dir, env, "run", "--detach", "--format", "json", "childproof.hcl")
	t.Cleanup(func() { cli(t, dir, env, "stop", "pg") })
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	var r struct {
		runReport
		Worker struct {
			Pid int `json:"pid"`
			UID int `json:"uid"`
		} `json:"worker"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("run output: %v\n%s", err, out)
	}
	if !r.Verified || r.Worker.UID != uid {
		t.Fatalf("worker uid %d (verified %v), want postgres's %d:\n%s", r.Worker.UID, r.Verified, uid, out)
	}
	// The kernel's view of the worker: uid and gid are postgres's.
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", r.Worker.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{fmt.Sprintf("Uid:\t%d\t%d\t%d\t%d\n", uid, uid, uid, uid), fmt.Sprintf("Gid:\t%d\t%d\t%d\t%d\n", gid, gid, gid, gid)} {
		if !strings.Contains(string(status), want) {
			t.Errorf("worker status lacks %q:\n%s", want, status)
		}
	}
	// It serves: psql as postgres over TCP, at once — the spec's readiness
	// is pg_isready (ready.exec), which says no while postgres replays
	// its startup ("the database system is starting up").
	if psql, err := exec.LookPath("psql"); err == nil {
		q := exec.Command(psql, "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-d", "postgres", "-tAc", "select current_user")
		q.Env = []string{"PATH=" + os.Getenv("PATH"), "PGCONNECT_TIMEOUT=10"}
		b, err := q.CombinedOutput()
		if err != nil || strings.TrimSpace(string(b)) != "postgres" {
			t.Errorf("psql right after run: %v: %q", err, b)
		}
	}
	ps, _, _ := cli(t, dir, env, "ps")
	if !strings.Contains(ps, "(as postgres, uid "+pg.Uid+")") {
		t.Errorf("ps does not say the worker runs as postgres:\n%s", ps)
	}
	// The state dir stays root's, mode 0700: the worker cannot write it.
	fi, err := os.Stat(state)
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("state dir owner %d mode %v, want root's, 0700", st.Uid, fi.Mode().Perm())
	}
	if out, errs, code := cli(t, dir, env, "stop", "pg"); code != 0 {
		t.Errorf("stop: exit %d\n%s%s", code, out, errs)
	}
}
