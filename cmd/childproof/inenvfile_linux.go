//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/childproof/childproof/envres"
	"github.com/childproof/childproof/internal/dotenv"
	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/schema"
)

// envFileTarget is where an env file the dispatch chain loads clobbers a
// --set name: the file the last winning load reads, and the line there.
type envFileTarget struct {
	file string // absolute
	line int    // the assignment's line; 0 when the file does not assign it
	site string // the load, "scripts/dispatch.sh:6"
	why  string // set when the value cannot be written into a file: why not
}

func (t envFileTarget) at() string {
	if t.line == 0 {
		return displayPath(t.file, false)
	}
	return fmt.Sprintf("%s:%d", displayPath(t.file, false), t.line)
}

// envFileTargets reads the env-file-clobber findings of res for the names
// of set: for each name, the env file whose load decides the worker's
// value.
func envFileTargets(res *envres.Result, set map[string]string) map[string]envFileTarget {
	out := map[string]envFileTarget{}
	winners := map[string][]envres.EnvSource{}
	sites := map[string]string{}
	for _, f := range res.Findings {
		if f.Rule != envres.EnvFileClobber.Name {
			continue
		}
		for _, s := range f.Sources {
			if !hasKey(set, s.Variable) {
				continue
			}
			if _, ok := sites[s.Variable]; !ok || !s.Overwritten {
				sites[s.Variable] = fmt.Sprintf("%s:%d", f.File, f.Line)
			}
			if !s.Overwritten && !slices.Contains(winners[s.Variable], s) {
				winners[s.Variable] = append(winners[s.Variable], s)
			}
		}
		for _, v := range f.Variables {
			if hasKey(set, v) && !slices.ContainsFunc(f.Sources, func(s envres.EnvSource) bool { return s.Variable == v }) {
				out[v] = envFileTarget{site: fmt.Sprintf("%s:%d", f.File, f.Line), why: "its value there does not come from a file the chain reads"}
			}
		}
	}
	for v, ws := range winners {
		t := envFileTarget{site: sites[v]}
		switch {
		case len(ws) > 1:
			var files []string
			for _, w := range ws {
				files = append(files, displayPath(w.File, false))
			}
			t.why = "it may come from several env files (" + strings.Join(files, ", ") + "), depending on the path taken"
		case ws[0].File == "":
			t.why = "its value comes from something that is not a file (a here-document, a command's output)"
		case ws[0].Generated:
			t.file = ws[0].File
			t.why = "the chain writes " + displayPath(ws[0].File, false) + " itself (a generated file): an edit would be overwritten"
		default:
			t.file = ws[0].File
			if b, err := os.ReadFile(t.file); err == nil {
				if entries, err := dotenv.Parse(t.file, b); err == nil {
					if e, ok := dotenv.Map(entries)[v]; ok {
						t.line = e.Line
					}
				}
			}
		}
		if _, ok := out[v]; !ok || t.why == "" {
			out[v] = t
		}
	}
	return out
}

// lintRelaunch lints the launch's chain with the --set names protected,
// as run does. With inEnvFile, the env-file-clobber findings of the --set
// names are not errors: it returns, for each such name, the env file to
// write the value into (launcher.RelaunchOptions.InEnvFile). Without it, a
// refusal because of such a finding names --in-env-file in its hint.
func (a *app) lintRelaunch(ctx context.Context, l *schema.Launch, set map[string]string, secret []string, inEnvFile, noLint bool) (map[string]string, error) {
	if noLint && !inEnvFile {
		return nil, nil
	}
	res, err := envres.LintLaunch(ctx, withSet(l, set))
	if err != nil {
		var pe *envres.ParseError
		if errors.As(err, &pe) {
			return nil, exitf(exitUsage, "%v", err)
		}
		return nil, exitf(exitUsage, "lint: %v", err)
	}
	targets := envFileTargets(res, set)
	var in map[string]string
	if inEnvFile {
		if len(targets) == 0 {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("--in-env-file: no env file of the dispatch chain clobbers %s: there is nothing to edit; nothing was stopped", strings.Join(slices.Sorted(maps.Keys(set)), ", ")),
				hint: "drop --in-env-file: the --set value reaches the worker as an override"}
		}
		in = map[string]string{}
		for _, n := range slices.Sorted(maps.Keys(targets)) {
			t := targets[n]
			if t.why != "" {
				return nil, &exitError{code: exitUsage, err: fmt.Errorf("--in-env-file %s: the load at %s clobbers %s, but %s; nothing was edited or stopped", n, t.site, n, t.why),
					hint: "fix the dispatch chain (see docs/crash-fix-rounds.md, \"A dispatcher that clobbers the mitigation\")"}
			}
			in[n] = t.file
			where := "line " + fmt.Sprint(t.line)
			if t.line == 0 {
				where = "a line appended at its end (it does not assign " + n + " itself)"
			}
			fmt.Fprintf(a.stderr, "childproof: relaunch: --in-env-file %s: %s re-sources %s: writing %s into it at %s\n", n, t.site, displayPath(t.file, false), n, where)
			if slices.Contains(secret, n) || launcher.SecretName(l, n) {
				fmt.Fprintf(a.stderr, "childproof: warning: --in-env-file %s: %s is secret: the value it replaces in %s is not kept, so --unset %s and --round N cannot restore it\n", n, n, t.at(), n)
			}
		}
		// The findings the edit fixes are no longer errors.
		kept := res.Findings[:0:0]
		for _, f := range res.Findings {
			if f.Rule == envres.EnvFileClobber.Name && !slices.ContainsFunc(f.Variables, func(v string) bool { return !hasKey(in, v) }) {
				continue
			}
			kept = append(kept, f)
		}
		c := *res
		c.Findings = kept
		res = &c
		if noLint {
			return in, nil
		}
	}
	errs, _ := res.Count()
	if errs == 0 {
		return in, nil
	}
	a.writeLint(a.stderr, "text", res)
	hint := "fix the script, or launch anyway with --no-lint (verification on the worker still runs)"
	if !inEnvFile {
		for _, n := range slices.Sorted(maps.Keys(targets)) {
			if t := targets[n]; t.why == "" {
				hint = fmt.Sprintf("%s re-sources %s, which sets %s (%s): add --in-env-file to write %s into that file instead (the dispatcher keeps its re-source; --unset %s puts the file back); or fix the script, or --no-lint",
					t.site, displayPath(t.file, false), n, t.at(), n, n)
				break
			}
		}
	}
	return in, &exitError{code: exitFindings, err: fmt.Errorf("relaunch refused: the launch's dispatch chain has %d lint error(s)", errs), hint: hint}
}

// writeEnvFileChanges says what a relaunch did to env files.
func (a *app) writeEnvFileChanges(name string, res *launcher.RelaunchResult) {
	if res == nil {
		return
	}
	for _, c := range res.EnvFiles {
		at := fmt.Sprintf("%s:%d", displayPath(c.File, false), c.Line)
		switch c.How {
		case "edited":
			fmt.Fprintf(a.stderr, "childproof: relaunch: %s: set in %s (the old value, %s, is in the round: childproof history %s)\n", c.Name, at, short(c.OldDigest), name)
		case "appended":
			fmt.Fprintf(a.stderr, "childproof: relaunch: %s: appended to %s (the file did not assign it)\n", c.Name, at)
		case "restored":
			fmt.Fprintf(a.stderr, "childproof: relaunch: %s: %s put back as it was before the edit, byte for byte\n", c.Name, at)
		case "kept":
			fmt.Fprintf(a.stderr, "childproof: warning: relaunch: %s: %s keeps the edited value: the old value of a secret was not kept; edit the file by hand\n", c.Name, at)
		}
	}
	if res.EnvFilesRestored {
		fmt.Fprintf(a.stderr, "childproof: relaunch: the env file changes were undone (the relaunch failed)\n")
	}
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}
