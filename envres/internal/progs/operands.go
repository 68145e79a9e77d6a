package progs

import (
	"path/filepath"
	"strings"
)

// FileOperands returns the indexes of the operands of a filter command
// (cat, grep, sed, awk, cut, jq, perl …) that name files.
func FileOperands(fs []Arg) []int {
	if !fs[0].Known {
		return nil
	}
	cmd := filepath.Base(fs[0].S)
	var withArg string
	skipFirst := false
	switch cmd {
	case "cat", "tac", "head", "tail", "sort", "uniq", "envsubst", "dos2unix", "strings", "nl":
		withArg = "nc"
	case "grep", "egrep", "fgrep", "rg", "ggrep":
		withArg, skipFirst = "efmABCd", true
	case "sed", "gsed":
		withArg, skipFirst = "efl", true
	case "awk", "gawk", "mawk", "nawk":
		withArg, skipFirst = "fvF", true
	case "cut":
		withArg = "dfcb"
	case "jq":
		withArg, skipFirst = "", true
	case "perl":
		// perl -ne 'PROG' FILE…, perl -pe …: the program is -e's value
		// (the last letter of a cluster); without -e the first operand
		// is the program's file.
		var out []int
		prog := true
		for i := 1; i < len(fs); i++ {
			f := fs[i]
			if f.Known && strings.HasPrefix(f.S, "-") && len(f.S) > 1 && f.S != "--" {
				if strings.ContainsAny(f.S, "eE") && !strings.HasPrefix(f.S, "--") {
					prog = false
					if last := f.S[len(f.S)-1]; last == 'e' || last == 'E' {
						i++
					}
				}
				continue
			}
			if prog {
				prog = false
				continue
			}
			out = append(out, i)
		}
		return out
	default:
		return nil
	}
	var out []int
	for i := 1; i < len(fs); i++ {
		f := fs[i]
		if f.Known && strings.HasPrefix(f.S, "-") && len(f.S) > 1 {
			if f.S == "--" {
				continue
			}
			if len(f.S) == 2 && strings.ContainsRune(withArg, rune(f.S[1])) {
				if f.S[1] == 'e' || f.S[1] == 'f' && cmd != "cut" {
					skipFirst = false
				}
				i++
			}
			continue
		}
		if skipFirst {
			skipFirst = false
			continue
		}
		out = append(out, i)
	}
	return out
}
