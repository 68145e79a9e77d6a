package envres

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// lintBounded lints src as run.sh and fails when it takes more than 5 s or
// allocates more than maxAlloc bytes; it returns the findings' rules.
func lintBounded(t *testing.T, src string, maxAlloc uint64) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := Lint(context.Background(), Config{Dir: dir, Scripts: []string{"run.sh"}, Overrides: apiTest})
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if took > 5*time.Second {
		t.Errorf("lint took %v", took)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
		t.Errorf("lint allocated %d MB", alloc>>20)
	}
	var rules []string
	for _, f := range res.Findings {
		rules = append(rules, f.Rule)
	}
	return rules
}

// TestLintArrayDoublingBounded: issue 40 item 3. An array doubled 24
// times (or appended to itself 40 times), or "$@" doubled by set, made
// lint run out of memory; the array becomes unknown past maxArrayElems
// and lint goes on to the worker.
func TestLintArrayDoublingBounded(t *testing.T) {
	repeat := func(head, line string, n int) string {
		return "#!/bin/bash\n" + head + "\n" + strings.Repeat(line+"\n", n)
	}
	for name, src := range map[string]string{
		"A=(A A) x24":      repeat("A=(x y)", `A=("${A[@]}" "${A[@]}")`, 24),
		"A+=(A) x40":       repeat("A=(x)", `A+=("${A[@]}")`, 40),
		"A=(B B) B=(A A)":  repeat("A=(x y)", `B=("${A[@]}" "${A[@]}"); A=("${B[@]}" "${B[@]}")`, 24),
		`set -- "$@" "$@"`: repeat("set -- x y", `set -- "$@" "$@"`, 40),
		"unquoted":         repeat("A=(x y)", `A=(${A[@]} ${A[@]})`, 40),
	} {
		t.Run(name, func(t *testing.T) {
			rules := lintBounded(t, src+"exec bash -l ./server \"${A[@]}\" \"$@\"\n", 256<<20)
			if !strings.Contains(strings.Join(rules, " "), "login-shell") {
				t.Errorf("findings %v: lint did not go on to the worker's login-shell", rules)
			}
		})
	}
}

// TestLintArrayKnownUnderBound: a small array built by splicing stays
// known: its words are judged as the command.
func TestLintArrayKnownUnderBound(t *testing.T) {
	src := "#!/bin/bash\nCMD=(sudo)\nCMD=(\"${CMD[@]}\" -u app)\nexec \"${CMD[@]}\" ./server\n"
	rules := lintBounded(t, src, 64<<20)
	if !strings.Contains(strings.Join(rules, " "), "env-reset") {
		t.Errorf("findings %v, want env-reset for the sudo in CMD", rules)
	}
}

// FuzzLintBudget lints generated scripts of self-doubling arrays, strings,
// "$@", brace sequences, loops and functions, and asserts that each lint
// ends within bounded time and memory.
func FuzzLintBudget(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5, 6, 7, 8, 9})
	lines := []string{
		`A=("${A[@]}" "${A[@]}")`,
		`A+=("${A[@]}")`,
		`set -- "$@" "$@"`,
		`S="$S$S$S"`,
		`B=("${A[@]}" "${B[@]}" "${B[@]}")`,
		`A=({1..40}{1..40})`,
		`for x in "${A[@]}" "$@"; do A+=("$x"); B+=("$x" "$x"); done`,
		`f() { A=("${A[@]}" "$@" "$@"); }; f "${A[@]}" "${A[@]}"`,
		`A=($S $S)`,
		`eval "A=(\"\${A[@]}\" \"\${A[@]}\")"`,
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			data = data[:200]
		}
		var b strings.Builder
		b.WriteString("#!/bin/bash\nA=(x y)\nS=ab\nset -- p q\n")
		for _, c := range data {
			b.WriteString(lines[int(c)%len(lines)] + "\n")
		}
		b.WriteString("exec ./server \"${A[@]}\" \"${B[@]}\" \"$@\" \"$S\"\n")
		lintBounded(t, b.String(), 512<<20)
	})
}

// TestBackgroundHelperBeforeExec: issue 40 item 11. A command started in
// the background before the script execs its worker is a helper: its
// wrapper (env -i) and its & are not the worker's. The same command with
// no exec after it may be the worker: both are findings, as before.
func TestBackgroundHelperBeforeExec(t *testing.T) {
	const sh = "#!/bin/bash\n"
	runLintCases(t, []lintCase{
		// A helper is no worker (no env-reset), but nothing waits for it.
		{"daemonized helper, then exec", map[string]string{"run.sh": sh + "( env -i setsid ./helper --daemon & )\nexec ./api\n"}, Config{Overrides: apiTest},
			[]at{{"background-launch", "run.sh", 2, ""}}},
		{"background helper, then exec", map[string]string{"run.sh": sh + "env -i ./helper &\nexec ./api\n"}, Config{Overrides: apiTest},
			[]at{{"background-launch", "run.sh", 2, ""}}},
		{"daemonized last", map[string]string{"run.sh": sh + "( env -i setsid ./api & )\n"}, Config{Overrides: apiTest},
			[]at{{"background-launch", "run.sh", 2, ""}, {"env-reset", "run.sh", 2, "API_MODE"}}},
		{"background then wait", map[string]string{"run.sh": sh + "env -i ./api &\nwait\n"}, Config{Overrides: apiTest},
			[]at{{"env-reset", "run.sh", 2, "API_MODE"}}},
		{"background last", map[string]string{"run.sh": sh + "sudo ./api &\n"}, Config{Overrides: apiTest},
			[]at{{"background-launch", "run.sh", 2, ""}, {"env-reset", "run.sh", 2, "API_MODE"}}},
	})
}
