package wrapper

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		argv []string
		want []string
	}{
		{[]string{"bash", "--noprofile", "--norc", "dispatch.sh", "-l"}, nil},
		{[]string{"bash", "-lic", "exec srv"}, []string{"login-shell", "interactive-shell"}},
		{[]string{"-bash"}, []string{"login-shell"}},
		{[]string{"/bin/bash", "--login", "x.sh"}, []string{"login-shell"}},
		{[]string{"sh", "-i"}, []string{"interactive-shell"}},
		{[]string{"sh", "-c", "srv -l -i"}, nil},
		{[]string{"bash", "-o", "pipefail", "-c", "x"}, nil},
		{[]string{"bash", "--rcfile", "-l", "x"}, nil},
		{[]string{"sudo", "srv"}, []string{"env-reset"}},
		{[]string{"sudo", "-E", "srv"}, nil},
		{[]string{"sudo", "--preserve-env=KEY", "srv"}, nil},
		{[]string{"sudo", "-i", "srv"}, []string{"login-shell", "env-reset"}},
		{[]string{"su", "-", "app"}, []string{"login-shell", "env-reset"}},
		{[]string{"runuser", "-u", "app", "srv"}, nil}, // keeps the environment but HOME, SHELL, USER, LOGNAME
		{[]string{"su", "app", "-c", "srv"}, nil},
		{[]string{"runuser", "-l", "app", "-c", "srv"}, []string{"login-shell", "env-reset"}},
		{[]string{"env", "-i", "srv"}, []string{"env-reset"}},
		{[]string{"env", "-i", "A=1", "srv"}, nil}, // with no protected name, a reset that passes names on is a choice
		{[]string{"setpriv", "--reuid=1", "--reset-env", "srv"}, []string{"env-reset"}},
		{[]string{"gosu", "app", "srv"}, nil},
		{[]string{"sudo", "-s"}, []string{"interactive-shell", "env-reset"}},
		{[]string{"python3", "-l"}, nil},
		{[]string{"yash", "-l"}, []string{"login-shell"}},
		{[]string{"bash", "-c", "-l", "srv"}, []string{"login-shell"}},
		{[]string{"bash", "-eo", "pipefail", "-i"}, []string{"interactive-shell"}},
		{[]string{"bash", "+o", "-l", "-i"}, []string{"interactive-shell"}},
		{[]string{"bash", "-", "-l"}, nil},
		{[]string{"su", "-lm", "app"}, []string{"login-shell", "env-reset"}},
		{[]string{"sudo", "srv", "-i"}, []string{"env-reset"}}, // -i is srv's
		{[]string{"sudo", "-u", "app", "-i"}, []string{"login-shell", "env-reset"}},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := Classify(tt.argv); !cmp.Equal(got, tt.want) {
			t.Errorf("Classify(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

func TestParseShellArgs(t *testing.T) {
	tests := []struct {
		args    []string
		want    ShellOptions
		operand int
	}{
		{nil, ShellOptions{}, 0},
		{[]string{"script.sh", "-l"}, ShellOptions{}, 0},
		{[]string{"-lic", "exec srv"}, ShellOptions{Login: true, Interactive: true, Command: true}, 1},
		{[]string{"--login", "--noprofile", "-a", "x.sh"}, ShellOptions{Login: true, AllExport: true}, 3},
		{[]string{"--rcfile", "-l", "x.sh"}, ShellOptions{}, 2},
		{[]string{"-o", "pipefail", "+e", "x.sh"}, ShellOptions{}, 3},
		{[]string{"-eo", "pipefail", "-c", "cmd"}, ShellOptions{Command: true}, 3},
		{[]string{"--", "-l"}, ShellOptions{}, 1},
		{[]string{"-l", "", "-i"}, ShellOptions{Login: true}, 1}, // "": a word not known statically
		{[]string{"-o"}, ShellOptions{}, 2},
	}
	for _, tt := range tests {
		got, n := ParseShellArgs(tt.args)
		if got != tt.want || n != tt.operand {
			t.Errorf("ParseShellArgs(%q) = %+v, %d; want %+v, %d", tt.args, got, n, tt.want, tt.operand)
		}
	}
}

func TestParseSudoArgs(t *testing.T) {
	tests := []struct {
		args    []string
		want    SudoOptions
		command int
	}{
		{[]string{"srv", "-i"}, SudoOptions{}, 0},
		{[]string{"-u", "app", "-E", "srv"}, SudoOptions{Preserve: true}, 3},
		{[]string{"-iu", "root", "srv"}, SudoOptions{Login: true}, 2},
		{[]string{"-uroot", "srv"}, SudoOptions{}, 1},
		{[]string{"--preserve-env=A,B", "--user", "x", "srv"}, SudoOptions{List: []string{"A", "B"}, HasList: true}, 3},
		{[]string{"A=1", "-u", "x", "B=2", "--", "srv"}, SudoOptions{Assigns: []int{0, 3}}, 5},
		{[]string{"", "srv"}, SudoOptions{}, 0},
		{[]string{"-u"}, SudoOptions{}, 2},
	}
	for _, tt := range tests {
		got, n := ParseSudoArgs(tt.args)
		if !cmp.Equal(got, tt.want) || n != tt.command {
			t.Errorf("ParseSudoArgs(%q) = %+v, %d; want %+v, %d", tt.args, got, n, tt.want, tt.command)
		}
	}
}

func TestParseSuArgs(t *testing.T) {
	tests := []struct {
		prog string
		args []string
		want SuOptions
		stop int
	}{
		{"su", []string{"-", "app", "-c", "exec srv"}, SuOptions{Login: true, Command: 3, Direct: -1}, 4},
		{"su", []string{"-m", "app", "--command=exec srv"}, SuOptions{Preserve: true, Command: 2, CommandPrefix: "--command=", Direct: -1}, 3},
		{"su", []string{"-c/tmp/entry.sh", "node"}, SuOptions{Command: 0, CommandPrefix: "-c", Direct: -1}, 2},
		{"su", []string{"-lc", "srv", "app"}, SuOptions{Login: true, Command: 1, Direct: -1}, 3},
		{"su", []string{"-mcsrv", "app"}, SuOptions{Preserve: true, Command: 0, CommandPrefix: "-mc", Direct: -1}, 2},
		{"su", []string{"--command", "srv", "--shell=/bin/sh", "app"}, SuOptions{Command: 1, Direct: -1}, 4},
		{"su", []string{"-s", "/bin/sh", "-c", "srv", "app"}, SuOptions{Command: 3, Direct: -1}, 5},
		{"runuser", []string{"-uapp", "srv"}, SuOptions{Command: -1, Direct: 1}, 1},
		{"runuser", []string{"--user=app", "--", "srv"}, SuOptions{Command: -1, Direct: 2}, 2},
		{"su", []string{"-lp", "-s", "/bin/sh", "app"}, SuOptions{Login: true, Preserve: true, Command: -1, Direct: -1}, 4},
		{"runuser", []string{"-u", "app", "--", "srv", "-l"}, SuOptions{Command: -1, Direct: 3}, 3},
		{"runuser", []string{"-u"}, SuOptions{Command: -1, Direct: 1}, 1},
		{"su", []string{"-u", "x"}, SuOptions{Command: -1, Direct: -1}, 2}, // -u is runuser's
		// "": a word not known statically is an operand; options after it count.
		{"su", []string{"app", "", "-l"}, SuOptions{Login: true, Command: -1, Direct: -1}, 3},
		{"su", []string{"-", "", "-c", "./server"}, SuOptions{Login: true, Command: 3, Direct: -1}, 4},
		{"runuser", []string{"-l", "", "-c", "srv"}, SuOptions{Login: true, Command: 3, Direct: -1}, 4},
		{"runuser", []string{"-u", "", "--", "srv"}, SuOptions{Command: -1, Direct: 3}, 3},
		{"runuser", []string{"-u", "app", "", "srv"}, SuOptions{Command: -1, Direct: 2}, 2},
	}
	for _, tt := range tests {
		got, n := ParseSuArgs(tt.prog, tt.args)
		if got != tt.want || n != tt.stop {
			t.Errorf("ParseSuArgs(%s, %q) = %+v, %d; want %+v, %d", tt.prog, tt.args, got, n, tt.want, tt.stop)
		}
	}
}

func TestClassifyFor(t *testing.T) {
	tests := []struct {
		argv []string
		prot []string
		want []string
	}{
		{[]string{"su", "app", "-c", "srv"}, []string{"KEY"}, nil},
		{[]string{"su", "app", "-c", "srv"}, []string{"HOME"}, []string{"env-reset"}},
		{[]string{"su", "-m", "app", "-c", "srv"}, []string{"HOME"}, nil},
		{[]string{"sudo", "--preserve-env=KEY", "srv"}, []string{"KEY"}, nil},
		{[]string{"sudo", "--preserve-env=KEY", "srv"}, []string{"KEY", "B"}, []string{"env-reset"}},
		{[]string{"sudo", "KEY=1", "srv"}, []string{"KEY"}, nil},
		{[]string{"env", "-i", "KEY=1", "srv"}, []string{"KEY"}, nil},
		{[]string{"env", "-u", "KEY", "srv"}, []string{"KEY"}, []string{"env-reset"}},
		{[]string{"nice", "-n", "5", "srv"}, []string{"KEY"}, nil},
		{[]string{"srv"}, []string{"KEY"}, nil},
	}
	for _, tt := range tests {
		if got := ClassifyFor(tt.argv, tt.prot); !cmp.Equal(got, tt.want) {
			t.Errorf("ClassifyFor(%q, %q) = %q, want %q", tt.argv, tt.prot, got, tt.want)
		}
	}
}

func TestLookupCommand(t *testing.T) {
	tests := []struct {
		argv    []string
		command int
		script  int
	}{
		{[]string{"nice", "-n", "5", "srv"}, 3, -1},
		{[]string{"nice", "-n5", "srv"}, 2, -1},
		{[]string{"nice", "--adjustment=5", "srv"}, 2, -1},
		{[]string{"ionice", "-c2", "-n", "7", "srv"}, 4, -1},
		{[]string{"taskset", "-c", "0-3", "srv"}, 3, -1},
		{[]string{"taskset", "0x3", "srv"}, 2, -1},
		{[]string{"numactl", "--cpunodebind=0", "--membind", "0", "srv"}, 4, -1},
		{[]string{"stdbuf", "-oL", "-e", "0", "srv"}, 4, -1},
		{[]string{"timeout", "-k", "5", "60s", "srv"}, 4, -1},
		{[]string{"timeout", "--signal=TERM", "60", "srv"}, 3, -1},
		{[]string{"xargs", "-0", "-n1", "-I", "{}", "srv"}, 5, -1},
		{[]string{"gosu", "app", "srv"}, 2, -1},
		{[]string{"su-exec", "app:app", "srv"}, 2, -1},
		{[]string{"setpriv", "--reuid", "1000", "--init-groups", "srv"}, 4, -1},
		{[]string{"chpst", "-u", "app", "srv"}, 3, -1},
		{[]string{"sudo", "-u", "app", "--", "srv"}, 4, -1},
		{[]string{"env", "-i", "A=1", "--", "B=2", "srv"}, 5, -1},
		{[]string{"env", "-uA", "srv"}, 2, -1},
		{[]string{"su", "-c", "srv", "app"}, -1, 2},
		{[]string{"su", "-c\"srv\"", "app"}, -1, 1},
		{[]string{"runuser", "-u", "app", "--", "srv"}, 4, -1},
		{[]string{"bash", "-lc", "srv"}, -1, 2},
		{[]string{"nohup", "srv"}, 1, -1},
		{[]string{"nohup"}, -1, -1},
	}
	for _, tt := range tests {
		e, ok := Lookup(tt.argv)
		if !ok || e.Command != tt.command || e.Script != tt.script {
			t.Errorf("Lookup(%q) = %+v, %v; want command %d, script %d", tt.argv, e, ok, tt.command, tt.script)
		}
	}
	if _, ok := Lookup([]string{"python3", "-m", "x"}); ok {
		t.Error("python3 is no wrapper")
	}
}

func TestParseEnvArgsForms(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want EnvOptions
		n    int
	}{
		{[]string{"-i", "A=1", "cmd", "x"}, EnvOptions{Ignore: true, Set: []string{"A"}}, 2},
		{[]string{"-iu", "X", "-uY", "--unset=Z", "--unset", "W", "cmd"}, EnvOptions{Ignore: true, Unset: []string{"X", "Y", "Z", "W"}}, 6},
		{[]string{"-C", "/d", "--chdir=/e", "cmd"}, EnvOptions{Chdir: "/e"}, 3},
		{[]string{"--", "A=1", "cmd"}, EnvOptions{Set: []string{"A"}}, 2},
		{[]string{"-S", "-i A=1 bash -l", "script"}, EnvOptions{Ignore: true, Set: []string{"A"}, Command: []string{"bash", "-l"}}, 2},
		{[]string{"-S-u X"}, EnvOptions{Unset: []string{"X"}}, 1},
		{[]string{"--split-string=python3 -u", "app.py"}, EnvOptions{Command: []string{"python3", "-u"}}, 1},
		{[]string{"-vS", `A='x y' "b c"\_d`}, EnvOptions{Set: []string{"A"}, Command: []string{"b c", "d"}}, 2},
	} {
		got, n := ParseEnvArgs(tc.args)
		if diff := cmp.Diff(tc.want, got); diff != "" || n != tc.n {
			t.Errorf("ParseEnvArgs(%q): n = %d, want %d; (-want +got):\n%s", tc.args, n, tc.n, diff)
		}
	}
}

func TestSplitEnvString(t *testing.T) {
	for in, want := range map[string][]string{
		"bash -l":           {"bash", "-l"},
		`  a\tb  'c d' "e"`: {"a\tb", "c d", "e"},
		`a\_b`:              {"a", "b"},
		`"a\_b"`:            {"a b"},
		`a \c b`:            {"a"},
		`a # rest`:          {"a"},
		"":                  nil,
	} {
		if diff := cmp.Diff(want, SplitEnvString(in)); diff != "" {
			t.Errorf("SplitEnvString(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestParseLoader(t *testing.T) {
	type file struct {
		Arg  int
		Path string
	}
	tests := []struct {
		argv     []string
		name     string
		files    []file
		override bool
		command  int
	}{
		{[]string{"env-cmd", "-f", ".env.prod", "node", "app.js"}, "env-cmd", []file{{2, ".env.prod"}}, true, 3},
		{[]string{"env-cmd", "--no-override", "node", "app.js"}, "env-cmd", []file{{-1, ".env"}}, false, 2},
		{[]string{"env-cmd", "--file=.env.x", "--", "node"}, "env-cmd", []file{{1, ".env.x"}}, true, 3},
		{[]string{"python3", "-m", "dotenv", "-f", ".env", "run", "--", "srv"}, "dotenv run", []file{{4, ".env"}}, true, 7},
		{[]string{"python", "-u", "-m", "dotenv", "run", "--no-override", "srv"}, "dotenv run", []file{{-1, ".env"}}, false, 6},
		{[]string{"dotenv", "run", "--", "./server"}, "dotenv run", []file{{-1, ".env"}}, true, 3},
		{[]string{"dotenv", "-e", ".env.local", "-o", "--", "srv"}, "dotenv-cli", []file{{2, ".env.local"}}, true, 5},
		{[]string{"dotenvx", "run", "-f", "a.env", "--", "srv"}, "dotenvx run", []file{{3, "a.env"}}, false, 5},
		{[]string{"uv", "run", "--env-file", "e", "--with", "x", "app"}, "uv run --env-file", []file{{3, "e"}}, false, 6},
		{[]string{"node", "--env-file=.env", "app.js"}, "node --env-file", []file{{1, ".env"}}, false, 0},
		{[]string{"env-cmd", "-f", "", "srv"}, "env-cmd", []file{{2, ""}}, true, 3}, // a path not known
	}
	for _, tt := range tests {
		la, ok := ParseLoader(tt.argv)
		if !ok {
			t.Errorf("ParseLoader(%q): not a loader", tt.argv)
			continue
		}
		var files []file
		for _, f := range la.Files {
			files = append(files, file{f.Arg, f.Path})
		}
		if la.Spec.Name != tt.name || la.Override != tt.override || la.Command != tt.command || !cmp.Equal(files, tt.files) {
			t.Errorf("ParseLoader(%q) = %s %v override=%v command=%d; want %s %v override=%v command=%d",
				tt.argv, la.Spec.Name, files, la.Override, la.Command, tt.name, tt.files, tt.override, tt.command)
		}
	}
	for _, argv := range [][]string{{"uv", "run", "app"}, {"node", "app.js"}, {"python3", "-m", "http.server"}, {"dotenvx", "get"}, {"env-cmd", "-f", ".env"}} {
		if la, ok := ParseLoader(argv); ok {
			t.Errorf("ParseLoader(%q) = %+v, want no loader", argv, la)
		}
	}
}

func TestSetuser(t *testing.T) {
	e, ok := Lookup([]string{"setuser", "app", "bash", "-l", "-c", "srv"})
	if !ok || e.Command != 2 || !cmp.Equal(e.Changed, []string{"USER", "HOME", "UID"}) {
		t.Fatalf("Lookup(setuser app bash …) = %+v, %v", e, ok)
	}
	if got := ClassifyFor([]string{"setuser", "app", "srv"}, []string{"HOME"}); !cmp.Equal(got, []string{EnvReset}) {
		t.Errorf("ClassifyFor(setuser, HOME) = %v", got)
	}
	if got := ClassifyFor([]string{"setuser", "app", "srv"}, []string{"KEY"}); got != nil {
		t.Errorf("ClassifyFor(setuser, KEY) = %v", got)
	}
}

// TestVersionManagerExec: pyenv exec CMD (what a pyenv shim runs) wraps
// CMD and sets PATH anew; pyenv's other subcommands wrap nothing.
func TestVersionManagerExec(t *testing.T) {
	e, ok := Lookup([]string{"/opt/pyenv/libexec/pyenv", "exec", "python3", "-m", "app"})
	if !ok || e.Command != 2 || !cmp.Equal(e.Changed, []string{"PATH"}) {
		t.Fatalf("Lookup(pyenv exec python3 …) = %+v, %v", e, ok)
	}
	if _, ok := Lookup([]string{"pyenv", "install", "3.11"}); ok {
		t.Error("pyenv install is taken for a wrapper")
	}
	if n, ok := Skip("asdf", []string{"exec", "node", "server.js"}); !ok || n != 1 {
		t.Errorf("Skip(asdf exec node …) = %d, %v", n, ok)
	}
	if !WrapsWith("rbenv", "exec") || WrapsWith("rbenv", "install") || IsTransparent("rbenv") || !IsTransparent("nohup") {
		t.Error("WrapsWith/IsTransparent disagree with the table")
	}
	if got := ClassifyFor([]string{"pyenv", "exec", "python3"}, []string{"PATH"}); !cmp.Equal(got, []string{EnvReset}) {
		t.Errorf("ClassifyFor(pyenv exec, PATH) = %v", got)
	}
}
