package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/launcher/present"
)

// psHosts is ps over ssh: childproof ps --format json on each host (with
// this call's --all and --state-dir values), in one table. A host that
// cannot be reached, or whose answer is not a census, is said on stderr
// and makes ps exit 2 after the others are listed.
func (a *app) psHosts(ctx context.Context, hosts []string, remote string, all bool) error {
	sshCmd := os.Getenv("CHILDPROOF_SSH_COMMAND")
	if sshCmd == "" {
		sshCmd = "ssh -o BatchMode=yes"
	}
	args := []string{remote, "ps", "--format", "json"}
	if all {
		args = append(args, "--all")
	}
	for _, d := range a.stateDirs {
		args = append(args, "--state-dir", d)
	}
	quoted := make([]string, len(args))
	for i, s := range args {
		quoted[i] = shQuote(s) // ssh joins its arguments into one command line for the remote shell
	}
	var es []launcher.CensusEntry
	var failed []string
	for _, h := range hosts {
		got, err := remoteCensus(ctx, sshCmd, h, strings.Join(quoted, " "))
		if err != nil {
			fmt.Fprintf(a.stderr, "childproof: error: host %s: %v\n", h, err)
			failed = append(failed, h)
			continue
		}
		for i := range got {
			got[i].Host = h
		}
		es = append(es, got...)
	}
	if a.format == "json" {
		if err := present.JSON(a.stdout, present.NewCensusOutput(es)); err != nil {
			return err
		}
	} else if len(es) == 0 {
		fmt.Fprintf(a.stdout, "no launches recorded on the %d hosts\n", len(hosts))
	} else {
		w := bufio.NewWriter(a.painted(a.stdout, reportPaint))
		present.WriteCensus(w, es, present.CensusText{Dir: workDir(), Euid: -1, Now: time.Now()})
		w.Flush()
	}
	if len(failed) > 0 {
		return exitf(exitUsage, "%d of %d hosts did not answer: %s", len(failed), len(hosts), strings.Join(failed, ", "))
	}
	return nil
}

// remoteCensus runs command on host through sshCmd (run by sh, as git
// runs GIT_SSH_COMMAND) and decodes its census. ps's own exit status there
// is not an error when it printed a census (a warning about one state dir).
func remoteCensus(ctx context.Context, sshCmd, host, command string) ([]launcher.CensusEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", sshCmd+` "$@"`, "sh", host, command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var out present.CensusOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Launches == nil {
		if runErr != nil {
			return nil, fmt.Errorf("%v: %s", runErr, lastLine(stderr.String()))
		}
		return nil, fmt.Errorf("its answer is not a census: %s", lastLine(stdout.String()))
	}
	return out.Launches, nil
}

// lastLine is the last non-empty line of s, for an error message.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
