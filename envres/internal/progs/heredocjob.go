package progs

import (
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/internal/wrapper"
)

// A here-document fed to a job submitter or to a shell somewhere else is
// a script of its own, run later or elsewhere:
//
//	sbatch [OPTIONS] <<EOF        the job script; the job starts with the
//	                              submitter's environment (--export=ALL,
//	                              sbatch(1)), --export=NONE resets it
//	ssh [OPTIONS] HOST [SHELL [-s]] <<EOF   the remote shell reads it, in
//	                              the remote user's environment
//	docker|podman exec -i [OPTIONS] C SHELL <<EOF, docker compose exec
//	[-T] SVC SHELL, kubectl exec -i POD -- SHELL   the container's shell
//	                              reads it, in the container's environment
//
// The body is linted as that script: its last command is its worker, its
// loads and wrappers are reported as a top-level script's. The submitting
// command itself runs and returns.

// Job is a command that feeds its here-document to a script interpreter
// elsewhere. It is plain data, safe for concurrent use while no one
// changes it.
type Job struct {
	By string // the command, for messages
	// ExportNone: sbatch --export=NONE, the job starts with only SLURM's
	// variables (an env-reset of the protected names).
	ExportNone bool
	// Inherit: the script starts with the caller's exported environment
	// (sbatch); else with one lint knows nothing of (a remote host, a
	// container): the protected names as they are there.
	Inherit bool
}

// sbatchValue are sbatch's one-letter options that take a value.
const sbatchValue = "AaBbCcDdeFGiJLMmNnopqSTtwx"

// sbatchFlags are sbatch's long options that take no value.
var sbatchFlags = optSet("--wait", "--hold", "--parsable", "--quiet", "--verbose", "--requeue", "--no-requeue",
	"--overcommit", "--test-only", "--contiguous", "--spread-job", "--use-min-nodes", "--ignore-pbs",
	"--exclusive", "--no-kill", "--immediate", "--oversubscribe", "--reboot", "--help", "--usage", "--version")

// sshValue are ssh's one-letter options that take a value (ssh(1)).
const sshValue = "BbcDEeFIiJLlmOoPpQRSWw"

// HeredocJob recognises fs as a Job, and false when it is none (or it
// runs a script file or a -c string instead of its input).
func HeredocJob(fs []Arg) (Job, bool) {
	if len(fs) == 0 || !fs[0].Known {
		return Job{}, false
	}
	words := make([]string, len(fs))
	for i, f := range fs {
		if f.Known {
			words[i] = f.S
		}
	}
	switch base := filepath.Base(words[0]); base {
	case "sbatch":
		j := Job{By: "sbatch", Inherit: true}
		for i := 1; i < len(words); i++ {
			w := words[i]
			switch {
			case w == "" || !strings.HasPrefix(w, "-") || w == "-":
				return Job{}, false // a script file (or --wrap's place): not the input
			case strings.HasPrefix(w, "--wrap"):
				return Job{}, false
			case w == "--export=NONE" || w == "--export" && i+1 < len(words) && words[i+1] == "NONE":
				j.ExportNone = true
			case strings.HasPrefix(w, "--"):
				if !strings.Contains(w, "=") && !sbatchFlags[w] {
					i++
				}
			case len(w) == 2 && strings.IndexByte(sbatchValue, w[1]) >= 0:
				i++
			}
		}
		return j, true
	case "ssh":
		i := 1
		for ; i < len(words); i++ {
			w := words[i]
			if w == "" || !strings.HasPrefix(w, "-") {
				break
			}
			if len(w) == 2 && strings.IndexByte(sshValue, w[1]) >= 0 {
				i++
			}
		}
		if i >= len(words) {
			return Job{}, false
		}
		// ssh joins the remote command's words with spaces; the remote
		// login shell runs it (no command: it reads the input itself).
		if !shellReadsInput(strings.Fields(strings.Join(words[i+1:], " ")), true) {
			return Job{}, false
		}
		return Job{By: "ssh"}, true
	case "docker", "podman", "kubectl":
		i, stdin := 1, false
		if base == "docker" && len(words) > 2 && words[1] == "compose" {
			i, stdin = 2, true // compose exec attaches stdin unless -T… which still feeds it
		}
		if i >= len(words) || words[i] != "exec" {
			return Job{}, false
		}
		for i++; i < len(words); i++ {
			w := words[i]
			if w == "--" {
				i++
				break
			}
			if w == "" || !strings.HasPrefix(w, "-") {
				if base == "kubectl" {
					continue // the pod; the command follows "--"
				}
				i++ // the container
				break
			}
			switch {
			case w == "-i" || w == "--interactive" || w == "--stdin" || w == "-T" ||
				strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'i'):
				stdin = true
			case w == "-e" || w == "--env" || w == "--env-file" || w == "-u" || w == "--user" || w == "-w" ||
				w == "--workdir" || w == "--detach-keys" || w == "-c" || w == "--container" || w == "--index" || w == "-n" || w == "--namespace":
				i++
			}
		}
		if !stdin || i >= len(words) || !shellReadsInput(words[i:], false) {
			return Job{}, false
		}
		return Job{By: base + " exec"}, true
	}
	return Job{}, false
}

// shellReadsInput reports whether argv is a shell that reads its script
// from standard input: no -c and no script operand (or -s); none at all
// when empty is set (ssh's remote login shell).
func shellReadsInput(argv []string, empty bool) bool {
	if len(argv) == 0 {
		return empty
	}
	if !wrapper.IsShell(filepath.Base(argv[0])) {
		return false
	}
	o, n := wrapper.ParseShellArgs(argv[1:])
	if o.Command {
		return false
	}
	if n >= len(argv)-1 {
		return true // no operand: the script is the input
	}
	for _, o := range argv[1 : 1+n] {
		if len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.IndexByte(o, 's') > 0 {
			return true // -s: the input, with the operands as $1…
		}
	}
	return false
}
