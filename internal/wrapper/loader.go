package wrapper

import (
	"path/filepath"
	"slices"
	"strings"
)

// LoaderSpec is how one env-file loader — a program that reads env files
// into the environment of the command it runs — takes its arguments, by
// its manual. It is plain data, safe for concurrent use while no one
// changes it.
type LoaderSpec struct {
	// Name names the loader in messages ("dotenv run", "env-cmd").
	Name string
	// Prog is the program's base name; Sub the subcommand that runs a
	// command ("run"), "" when none.
	Prog, Sub string
	// File are the options whose value is an env file (a long one also
	// as --opt=FILE); Default is the file read when none is named ("" for
	// none).
	File    []string
	Default string
	// Unknown are the options whose value names files in a format lint
	// does not read (env-cmd's -e/--environments of an rc file): a load
	// whose names are not known.
	Unknown []string
	// Override says whether the file's values win over the caller's
	// exported ones by default; OverrideOn and OverrideOff change it.
	Override                bool
	OverrideOn, OverrideOff []string
	// Value are the other options that take a value.
	Value []string
	// Self: the program runs the command itself (node --env-file=F
	// app.js): the command is the whole argv.
	Self bool
}

// loaders is the one table of env-file loaders; docs/lint.md cites each
// manual. Entries for the same Prog are tried in order.
var loaders = []LoaderSpec{
	// python-dotenv's CLI: dotenv [-f F] [-q Q] [-e B] run
	// [--override|--no-override] CMD; "--override/--no-override
	// Override variables from the environment file with those from the
	// .env file" (default: override); -f defaults to ./.env.
	{Name: "dotenv run", Prog: "dotenv", Sub: "run", File: []string{"-f", "--file"}, Default: ".env",
		Override: true, OverrideOn: []string{"--override"}, OverrideOff: []string{"--no-override"},
		Value: []string{"-q", "--quote", "-e", "--export"}},
	// dotenv-cli: dotenv [-e F]… [-o] [-v K=V] [-c [ENV]] [-p V] -- CMD;
	// "-o flag to override existing environment variables" (default:
	// not).
	{Name: "dotenv-cli", Prog: "dotenv", File: []string{"-e"}, Default: ".env",
		OverrideOn: []string{"-o", "--override"}, Value: []string{"-v", "-p", "-c"}},
	// dotenvx run [-f F]… [-o|--overload] -- CMD; without --overload the
	// existing environment wins.
	{Name: "dotenvx run", Prog: "dotenvx", Sub: "run", File: []string{"-f", "--env-file"}, Default: ".env",
		OverrideOn: []string{"-o", "--overload", "--override"}, Value: []string{"--env", "--convention", "-fk", "--env-keys-file"}},
	// env-cmd [-f F] [-e ENVS [-r RC]] [--no-override] CMD; "-f, --file
	// [path] Custom env file path (default path: ./.env)", "--no-override
	// Do not override existing environment variables" (default:
	// override).
	{Name: "env-cmd", Prog: "env-cmd", File: []string{"-f", "--file"}, Default: ".env",
		Unknown:  []string{"-e", "--environments"},
		Override: true, OverrideOff: []string{"--no-override"}, Value: []string{"-r", "--rc-file"}},
	// uv run --env-file F CMD: "the environment file's values do not
	// override the existing environment".
	{Name: "uv run --env-file", Prog: "uv", Sub: "run", File: []string{"--env-file"}, Value: uvValue},
	// node --env-file=F script: existing environment variables win.
	{Name: "node --env-file", Prog: "node", File: []string{"--env-file", "--env-file-if-exists"}, Self: true},
	{Name: "node --env-file", Prog: "nodejs", File: []string{"--env-file", "--env-file-if-exists"}, Self: true},
}

// uvValue are uv run's options that take a value.
var uvValue = []string{
	"--with", "-w", "--with-editable", "--with-requirements", "-p", "--python",
	"--project", "--directory", "--package", "--extra", "--group", "--only-group",
	"--no-group", "--index", "--default-index", "-i", "--index-url",
	"--extra-index-url", "-f", "--find-links", "--cache-dir", "--config-file",
	"--python-platform", "--no-extra", "--index-strategy", "--keyring-provider",
	"--resolution", "--prerelease", "--exclude-newer", "--link-mode", "--refresh-package",
	"--reinstall-package", "--upgrade-package", "-P", "-C", "--config-setting",
}

// UVValueOptions returns uv run's options that take a value.
func UVValueOptions() []string { return slices.Clone(uvValue) }

// LoaderFile is one env file a loader reads. It is plain data, safe for
// concurrent use while no one changes it.
type LoaderFile struct {
	// Arg is the index in argv of the argument that names it (-1 for the
	// default file); Prefix what precedes the path in that argument
	// ("--env-file=", "" when the argument is the path).
	Arg    int
	Prefix string
	// Path is the path as given ("" when Arg's word is not known); the
	// default file's path for Arg -1.
	Path string
	// Unknown: the argument names files lint does not read.
	Unknown bool
}

// LoaderArgs is what a loader's argv asks for. It is plain data, safe for
// concurrent use while no one changes it. Spec points into the package's
// own table: never change what it points to.
type LoaderArgs struct {
	Spec     *LoaderSpec
	Files    []LoaderFile
	Named    bool // a file was named (else the default file is read)
	Override bool
	// Command is the index in argv where the command starts (the whole
	// argv for a Self loader); len(argv) when there is none.
	Command int
}

// ParseLoader reads argv as an env-file loader's command line, and false
// when argv[0] is none (or its subcommand runs no command). Like the
// other parsers here, a word the caller cannot read statically is passed
// as "": in an option's place it is an operand (the command). python -m
// dotenv … and python3 -m dotenv … are python-dotenv's CLI.
func ParseLoader(argv []string) (LoaderArgs, bool) {
	off := 0
	if n := pythonModule(argv, "dotenv"); n > 0 {
		off = n
		argv = argv[n:]
	}
	if len(argv) == 0 {
		return LoaderArgs{}, false
	}
	base := filepath.Base(argv[0])
	for i := range loaders {
		s := &loaders[i]
		if s.Prog != base {
			continue
		}
		if la, ok := s.parse(argv); ok {
			la.Command += off
			for k := range la.Files {
				if la.Files[k].Arg >= 0 {
					la.Files[k].Arg += off
				}
			}
			return la, true
		}
	}
	return LoaderArgs{}, false
}

// pythonModule returns the index of the module's name when argv is
// python[3[.N]] [-u|-B|-O|…] -m MODULE …, else 0.
func pythonModule(argv []string, module string) int {
	if len(argv) < 3 {
		return 0
	}
	b := filepath.Base(argv[0])
	if b != "python" && !strings.HasPrefix(b, "python3") && !strings.HasPrefix(b, "python2") {
		return 0
	}
	for i := 1; i+1 < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-m":
			if argv[i+1] == module {
				return i + 1
			}
			return 0
		case len(a) > 1 && a[0] == '-' && !strings.ContainsAny(a[1:], "cmWX"):
			// -u, -B, -O, -E, -I, -s, -S: flags without a value
		default:
			return 0
		}
	}
	return 0
}

// parse reads argv by the spec: options (in every form: separate or
// attached values, --opt=VALUE, "--") before the subcommand and after it,
// then the command.
func (s *LoaderSpec) parse(argv []string) (LoaderArgs, bool) {
	la := LoaderArgs{Spec: s, Override: s.Override, Command: len(argv)}
	if s.Self {
		la.Command = 0
	}
	sub := s.Sub == ""
	i := 1
	for i < len(argv) {
		a := argv[i]
		if a == "--" {
			if !sub {
				return LoaderArgs{}, false
			}
			if !s.Self {
				la.Command = i + 1
			}
			break
		}
		if a == "" || !strings.HasPrefix(a, "-") || a == "-" {
			if !sub {
				if a != s.Sub {
					return LoaderArgs{}, false
				}
				sub = true
				i++
				continue
			}
			if !s.Self {
				la.Command = i
			}
			break
		}
		name, val, eq := strings.Cut(a, "=")
		switch {
		case slices.Contains(s.File, name), slices.Contains(s.Unknown, name):
			f := LoaderFile{Arg: i, Unknown: slices.Contains(s.Unknown, name)}
			if eq {
				f.Prefix, f.Path = name+"=", val
			} else if i+1 < len(argv) {
				f.Arg, f.Path = i+1, argv[i+1]
				i++
			}
			la.Files = append(la.Files, f)
			la.Named = true // (env-cmd -e reads its rc file, not .env)
		case slices.Contains(s.OverrideOn, a):
			la.Override = true
		case slices.Contains(s.OverrideOff, a):
			la.Override = false
		case !eq && slices.Contains(s.Value, a):
			i++
		}
		i++
	}
	if !sub || !s.Self && la.Command >= len(argv) {
		return LoaderArgs{}, false
	}
	if !la.Named && s.Default != "" {
		la.Files = append(la.Files, LoaderFile{Arg: -1, Path: s.Default})
	}
	if len(la.Files) == 0 {
		return LoaderArgs{}, false // uv run, node without --env-file: no load
	}
	return la, true
}
