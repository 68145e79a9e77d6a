package interp

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/childproof/childproof/envres/internal/progs"
	"github.com/childproof/childproof/internal/wrapper"
)

// shebangNotes returns the wrapper notes of a shebang that starts a login
// or interactive shell, at line 1 of the script, with s's chain: they
// count whenever the script launches anything (always).
func shebangNotes(src []byte, s Site) []wrapNote {
	o := progs.ShebangOf(src)
	var ws []wrapNote
	if o.Login {
		ws = append(ws, wrapNote{rule: wrapper.LoginShell, site: s, always: true,
			msg: "the shebang starts " + o.Shell + " as a login shell: profile files run before the script's first line and may reset protected variables"})
	}
	if o.Interactive {
		ws = append(ws, wrapNote{rule: wrapper.InteractiveShell, site: s, always: true,
			msg: "the shebang starts " + o.Shell + " as an interactive shell: rc files run before the script's first line and may change protected variables"})
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
