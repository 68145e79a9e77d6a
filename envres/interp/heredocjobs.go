package interp

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

// heredocJob is a command that feeds its here-document to a script
// interpreter elsewhere.
type heredocJob struct {
	by string // the command, for messages
	// exportNone: sbatch --export=NONE, the job starts with only SLURM's
	// variables (an env-reset of the protected names).
	exportNone bool
	// inherit: the script starts with the caller's exported environment
	// (sbatch); else with one lint knows nothing of (a remote host, a
	// container): the protected names as they are there.
	inherit bool
}

// sbatchValue are sbatch's one-letter options that take a value.
const sbatchValue = "AaBbCcDdeFGiJLMmNnopqSTtwx"

// sbatchFlags are sbatch's long options that take no value.
var sbatchFlags = optSet("--wait", "--hold", "--parsable", "--quiet", "--verbose", "--requeue", "--no-requeue",
	"--overcommit", "--test-only", "--contiguous", "--spread-job", "--use-min-nodes", "--ignore-pbs",
	"--exclusive", "--no-kill", "--immediate", "--oversubscribe", "--reboot", "--help", "--usage", "--version")

// sshValue are ssh's one-letter options that take a value (ssh(1)).
const sshValue = "BbcDEeFIiJLlmOoPpQRSWw"

// parseHeredocJob recognises fs as a heredocJob, and false when it is
// none (or it runs a script file or a -c string instead of its input).
func parseHeredocJob(fs []field) (heredocJob, bool) {
	if len(fs) == 0 || !fs[0].Known {
		return heredocJob{}, false
	}
	words := make([]string, len(fs))
	for i, f := range fs {
		if f.Known {
			words[i] = f.Str
		}
	}
	switch base := filepath.Base(words[0]); base {
	case "sbatch":
		j := heredocJob{by: "sbatch", inherit: true}
		for i := 1; i < len(words); i++ {
			w := words[i]
			switch {
			case w == "" || !strings.HasPrefix(w, "-") || w == "-":
				return heredocJob{}, false // a script file (or --wrap's place): not the input
			case strings.HasPrefix(w, "--wrap"):
				return heredocJob{}, false
			case w == "--export=NONE" || w == "--export" && i+1 < len(words) && words[i+1] == "NONE":
				j.exportNone = true
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
			return heredocJob{}, false
		}
		// ssh joins the remote command's words with spaces; the remote
		// login shell runs it (no command: it reads the input itself).
		if !shellReadsInput(strings.Fields(strings.Join(words[i+1:], " ")), true) {
			return heredocJob{}, false
		}
		return heredocJob{by: "ssh"}, true
	case "docker", "podman", "kubectl":
		i, stdin := 1, false
		if base == "docker" && len(words) > 2 && words[1] == "compose" {
			i, stdin = 2, true // compose exec attaches stdin unless -T… which still feeds it
		}
		if i >= len(words) || words[i] != "exec" {
			return heredocJob{}, false
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
			return heredocJob{}, false
		}
		return heredocJob{by: base + " exec"}, true
	}
	return heredocJob{}, false
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

// heredocJobRun lints the here-document of c's statement as the script
// of j: known when it is (its expansions resolved), else as written.
func (a *analyzer) heredocJobRun(c *cmdRun, j heredocJob) bool {
	hd := heredoc(c.s)
	if hd == nil {
		return false
	}
	ev := a.eval(c.st, c.fc)
	body := ev.Word(hd)
	if !body.Known {
		src := a.sources[c.fc.name]
		start, end := int(hd.Pos().Offset()), int(hd.End().Offset())
		if c.fc.embedded || src == nil || start >= end || end > len(src) {
			return false
		}
		// The expansions of an unquoted delimiter's body happen here,
		// before the job runs; linted as written, they happen in the
		// job with the environment it starts with.
		body = field{Str: string(src[start:end]), Known: true, Pos: hd.Pos()}
	}
	body.Word = nil // positions: the body starts a line
	cst := c.cst
	switch {
	case j.exportNone:
		// sbatch(1): "--export=NONE: only SLURM_* variables from the
		// user environment will be defined".
		c.fork()
		cst = c.cst
		a.addWrap(cst, wrapper.EnvReset, a.siteAt(c.st, c.fc, c.fs[0].Pos), "sbatch --export=NONE starts the job with only SLURM's variables: protected variables are dropped", a.protNames()...)
		a.markReset(cst, nil)
	case !j.inherit:
		cst = a.initialState("")
		cst.chain = c.st.chain
	}
	a.detached = true
	a.runEmbedded(c.st, cst, c.fc, body, nil, callNormal, false, false)
	return true
}
