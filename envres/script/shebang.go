package script

import (
	"bytes"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/internal/wrapper"
)

// Interpreter returns the base name of the interpreter a "#!" line names,
// looking through env and its flags ("#!/usr/bin/env -S bash" → "bash"),
// or "" when src has no shebang.
func Interpreter(src []byte) string {
	if !bytes.HasPrefix(src, []byte("#!")) {
		return ""
	}
	line := src
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		line = src[:i]
	}
	fs := strings.Fields(string(line[2:]))
	if len(fs) == 0 {
		return ""
	}
	interp := filepath.Base(fs[0])
	if interp == "env" {
		for _, f := range fs[1:] {
			if !strings.HasPrefix(f, "-") {
				return filepath.Base(f)
			}
		}
	}
	return interp
}

// Dialect returns the dialect the first line names: POSIX for sh,
// dash, ash, posh; MirBSD Korn for mksh and lksh (and ksh, which is mksh
// or pdksh on most systems that have it); bash otherwise.
func Dialect(src []byte) syntax.LangVariant {
	switch i := Interpreter(src); {
	case wrapper.IsPOSIXShell(i):
		return syntax.LangPOSIX
	case i == "mksh" || i == "lksh" || i == "ksh" || i == "pdksh" || i == "oksh":
		return syntax.LangMirBSDKorn
	}
	return syntax.LangBash
}

// ShebangShell reports whether a file starts with a shell shebang.
func ShebangShell(src []byte) bool {
	i := Interpreter(src)
	return i != "" && wrapper.IsShell(i)
}
