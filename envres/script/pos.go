package script

import (
	"strconv"
	"unicode/utf8"
)

// Pos is a place in a script: every position envres reports (findings,
// sites, worker starts, notes, constructs, chain links, parse errors) is
// one. The zero Pos is no place. It is plain data, safe for concurrent use
// while no one changes it.
type Pos struct {
	// File is the file as the findings name it (relative to Config.Dir,
	// or CommandFile).
	File string `json:"file"`
	// Line is 1-based; 0 when the place has no line.
	Line int `json:"line"`
	// Column is 1-based and counts bytes, as gcc and mvdan.cc/sh do (the
	// SARIF writer converts it to UTF-16 code units); 0 when unknown.
	Column int `json:"column"`
}

// String is file:line:col, or file alone when p has no line.
func (p Pos) String() string {
	if p.Line <= 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(max(p.Column, 1))
}

// CharColumn is p's column counted in characters over line, the text of
// p's line: 1-based, and past the end of line by as many bytes as Column is.
func (p Pos) CharColumn(line string) int {
	col := max(p.Column, 1)
	if col-1 > len(line) {
		return utf8.RuneCountInString(line) + 1 + (col - 1 - len(line))
	}
	return utf8.RuneCountInString(line[:col-1]) + 1
}

// CommandFile is the file name findings on Config.Argv are reported in.
const CommandFile = "<command>"
