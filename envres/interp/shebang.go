package interp

import (
	"bytes"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/internal/wrapper"
)

// shebangOpts is what a "#!" line asks of the shell it starts: the kernel
// runs the interpreter with the line's options before the script's first
// line, so #!/bin/bash -l is a login shell as much as bash -l script is.
type shebangOpts struct {
	shell       string // base name of the shell, "" when not a shell
	login       bool   // -l, --login
	interactive bool   // -i
}

// shebangInvocation reads the options of src's shebang, looking through
// env and its -S ("#!/usr/bin/env -S bash -li").
func shebangInvocation(src []byte) shebangOpts {
	var o shebangOpts
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
	o.shell = filepath.Base(fields[0])
	so, _ := wrapper.ParseShellArgs(rest)
	o.login, o.interactive = so.Login, so.Interactive
	return o
}

// shebangNotes returns the wrapper notes of a shebang that starts a login
// or interactive shell, at line 1 of the script, with s's chain: they
// count whenever the script launches anything (always).
func shebangNotes(src []byte, s Site) []wrapNote {
	o := shebangInvocation(src)
	var ws []wrapNote
	if o.login {
		ws = append(ws, wrapNote{rule: wrapper.LoginShell, site: s, always: true,
			msg: "the shebang starts " + o.shell + " as a login shell: profile files run before the script's first line and may reset protected variables"})
	}
	if o.interactive {
		ws = append(ws, wrapNote{rule: wrapper.InteractiveShell, site: s, always: true,
			msg: "the shebang starts " + o.shell + " as an interactive shell: rc files run before the script's first line and may change protected variables"})
	}
	return ws
}

// shebangFlags returns the notes of a script run by its path (./F) whose
// shebang starts a login or interactive shell, at the shebang, with the
// call in the chain.
func (a *analyzer) shebangFlags(st *state, fc *fileCtx, callPos syntax.Pos, abs string) []wrapNote {
	head, err := a.openHead(abs)
	if err != nil {
		return nil
	}
	call := a.siteAt(st, fc, callPos)
	return shebangNotes(head, Site{Pos: Pos{File: a.display(abs), Line: 1, Column: 1},
		Chain: append(st.chain[:len(st.chain):len(st.chain)], Pos{File: call.File, Line: call.Line})})
}
