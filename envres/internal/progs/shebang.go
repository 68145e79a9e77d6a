package progs

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/childproof/childproof/internal/wrapper"
)

// Shebang is what a "#!" line asks of the shell it starts: the kernel
// runs the interpreter with the line's options before the script's first
// line, so #!/bin/bash -l is a login shell as much as bash -l script is.
// It is plain data, safe for concurrent use while no one changes it.
type Shebang struct {
	Shell       string // base name of the shell, "" when not a shell
	Login       bool   // -l, --login
	Interactive bool   // -i
}

// ShebangOf reads the options of src's shebang, looking through env and
// its -S ("#!/usr/bin/env -S bash -li").
func ShebangOf(src []byte) Shebang {
	var o Shebang
	if !bytes.HasPrefix(src, []byte("#!")) {
		return o
	}
	line := src
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		line = src[:i]
	}
	fields := strings.Fields(string(line[2:]))
	if len(fields) == 0 {
		return o
	}
	rest := fields[1:]
	if filepath.Base(fields[0]) == "env" {
		// env [-S] [-i] [NAME=VALUE]… SHELL [OPTS], by env's own parser.
		eo, n := wrapper.ParseEnvArgs(rest)
		fields = append(eo.Command, rest[n:]...)
		if len(fields) == 0 {
			return o
		}
		rest = fields[1:]
	}
	if !wrapper.IsShell(fields[0]) {
		return o
	}
	o.Shell = filepath.Base(fields[0])
	so, _ := wrapper.ParseShellArgs(rest)
	o.Login, o.Interactive = so.Login, so.Interactive
	return o
}
