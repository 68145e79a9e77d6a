package progs

import (
	"path/filepath"
	"strings"
)

// Detaches reports whether a command run in the foreground starts a
// server that outlives it: the command forks its worker into the
// background and returns, so the worker starts there, in the command's
// environment and under its wrappers (sudo php start.php start -d leaves
// the daemon in sudo's reset environment). From the programs' manuals:
//
//   - a detach option anywhere: --daemon, --daemonize (bare, =yes/true/1
//     or followed by a value that is not no/false/0: uwsgi's takes a log
//     file, redis-server's yes), --detach (celery, rq), --fork (mongod);
//   - -d or --daemon after a start or restart word (Workerman and the
//     PHP servers built on it: php start.php start -d);
//   - gunicorn -D, php-fpm -D, memcached -d;
//   - ray start without --block (it starts the head or worker processes
//     and returns).
//
// A program known to run and return (returning.go: apt-get, systemctl,
// service, docker …) is none: what service or docker starts is started by
// a manager, not in this environment.
func Detaches(argv []Arg) bool {
	if len(argv) < 2 || !argv[0].Known || Returns(argv) {
		return false
	}
	base := filepath.Base(argv[0].S)
	args := make([]string, 0, len(argv)-1)
	for _, f := range argv[1:] {
		if f.Known {
			args = append(args, f.S)
		} else {
			args = append(args, unknownMark)
		}
	}
	switch base {
	case "ray":
		return args[0] == "start" && !hasArg(args, "--block")
	case "gunicorn", "php-fpm", "memcached":
		for _, a := range args {
			if base == "memcached" && a == "-d" || base != "memcached" && a == "-D" {
				return true
			}
		}
	}
	start := false
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "start" || a == "restart":
			start = true
		case start && (a == "-d" || a == "--daemon"):
			return true
		case a == "--daemon", a == "--detach", a == "--fork":
			return true
		case a == "--daemonize":
			if i+1 >= len(args) || !offWord(args[i+1]) {
				return true
			}
		case strings.HasPrefix(a, "--daemon=") || strings.HasPrefix(a, "--daemonize=") || strings.HasPrefix(a, "--detach="):
			_, v, _ := strings.Cut(a, "=")
			if v != unknownMark && !offWord(v) {
				return true
			}
		}
	}
	return false
}

// unknownMark stands for a word that is not known statically: an
// option's value read only where it is known.
const unknownMark = "\x00"

// offWord reports whether an option's value turns it off.
func offWord(s string) bool {
	switch strings.ToLower(s) {
	case "no", "false", "0", "off", unknownMark:
		return true
	}
	return false
}

func hasArg(args []string, s string) bool {
	for _, a := range args {
		if a == s {
			return true
		}
	}
	return false
}
