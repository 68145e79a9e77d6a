package progs

import (
	"strings"
	"sync"
)

// Trivial reports whether a command (its base name) is one never taken
// for the worker: mkdir, echo, sleep, grep …
func Trivial(base string) bool { return trivial()[base] }

// trivial are the commands never taken for the worker.
var trivial = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"mkdir": true, "rm": true, "cp": true, "mv": true, "touch": true, "chmod": true, "chown": true, "ln": true,
		"cat": true, "sleep": true, "echo": true, "printf": true, "test": true, "[": true, "true": true, "false": true,
		"date": true, "tee": true, "grep": true, "sed": true, "awk": true, "logger": true, "kill": true, "pkill": true,
		"ls": true, "env": true, "id": true, "whoami": true, "hostname": true, "uname": true, "which": true,
		"command": true, "type": true, "wait": true, "sync": true, "dirname": true, "basename": true, "realpath": true,
		"readlink": true, "mktemp": true, "head": true, "tail": true, "wc": true, "sort": true, "uniq": true, "cut": true,
		"tr": true, "xargs": true, "find": true, "stat": true, "exit": true, ":": true, "ps": true, "pgrep": true,
	}
})

// IsPython reports whether a command's base name is a Python interpreter.
func IsPython(base string) bool {
	return base == "python" || strings.HasPrefix(base, "python2") || strings.HasPrefix(base, "python3")
}

// KeepAlive reports whether a last command (its base name) only keeps the
// process alive (tail -f, sleep infinity, cat, read): the background
// launch before it is the worker.
func KeepAlive(base string) bool { return keepAlives[base] }

var keepAlives = map[string]bool{"tail": true, "sleep": true, "cat": true, "read": true, "wait": true, "inotifywait": true, "watch": true, "less": true, "journalctl": true}
