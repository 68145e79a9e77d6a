package hcltext

import (
	"bytes"

	"github.com/apparentlymart/go-textseg/v15/textseg"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Format lays out HCL source canonically, as hclwrite.Format does for
// the text this project writes: each line indented two spaces per
// bracket level it is inside, the "=" of consecutive one-line attributes
// (and trailing comments of consecutive lines) aligned one column after
// the longest name, no blanks at a line's end. Spaces between the tokens
// of a line are kept as written (a tab counts as one space): write them
// canonically, one space around "=" and after ",", none inside brackets.
func Format(src []byte) []byte {
	toks, _ := hclsyntax.LexConfig(src, "", hcl.InitialPos)
	// spaces[i] is how many blanks go before toks[i].
	spaces := make([]int, len(toks))
	last := 0
	for i, t := range toks {
		spaces[i] = t.Range.Start.Byte - last
		last = t.Range.End.Byte
	}
	lines := splitLines(toks)
	indent(toks, spaces, lines)
	align(toks, spaces, lines)
	var out bytes.Buffer
	out.Grow(len(src))
	for i, t := range toks {
		// Blanks before the end of the text stay, as hclwrite keeps them.
		for range spaces[i] {
			out.WriteByte(' ')
		}
		out.Write(t.Bytes)
	}
	return out.Bytes()
}

// line is one line's tokens, as indexes into the token list: lead up to
// an attribute's "=", assign from it, comment a trailing comment.
type line struct {
	start, assign, comment, end int // assign, comment: -1 when there is none
}

func (l line) leadEnd() int {
	switch {
	case l.assign >= 0:
		return l.assign
	case l.comment >= 0:
		return l.comment
	}
	return l.end
}

// splitLines cuts toks into lines: a newline, or a comment that ends in
// one ("#" and "//" comments take their newline), ends a line.
func splitLines(toks hclsyntax.Tokens) []line {
	var lines []line
	start := 0
	for i, t := range toks {
		if t.Type == hclsyntax.TokenEOF {
			lines = append(lines, line{start: start, end: i})
			break
		}
		if t.Type == hclsyntax.TokenNewline || t.Type == hclsyntax.TokenComment && bytes.HasSuffix(t.Bytes, []byte("\n")) {
			lines = append(lines, line{start: start, end: i + 1})
			start = i + 1
		}
	}
	for k := range lines {
		l := &lines[k]
		l.assign, l.comment = -1, -1
		if l.end-l.start > 1 && toks[l.end-1].Type == hclsyntax.TokenComment {
			l.comment = l.end - 1
		}
		// An attribute whose value ends on this line: "=" with the
		// brackets after it balanced.
		for i := l.start + 1; i < l.leadEnd(); i++ {
			if toks[i].Type == hclsyntax.TokenEqual {
				if net(toks[i:l.leadEnd()]) == 0 {
					l.assign = i
				}
				break
			}
		}
	}
	return lines
}

// indent sets the blanks before each line's first token: two per open
// bracket level. A line that opens brackets indents the lines after it;
// one that closes them outdents itself and what follows.
func indent(toks hclsyntax.Tokens, spaces []int, lines []line) {
	var levels []int // brackets each open level opened
	for _, l := range lines {
		if l.start == l.end {
			continue
		}
		if toks[l.start].Type == hclsyntax.TokenNewline {
			spaces[l.start] = 0
			continue
		}
		n := 0
		for _, t := range toks[l.start:l.leadEnd()] {
			n += bracket(t)
			if t.Type == hclsyntax.TokenOHeredoc {
				break
			}
		}
		if l.assign >= 0 {
			end := l.end
			if l.comment >= 0 {
				end = l.comment
			}
			n += net(toks[l.assign:end])
		}
		switch {
		case n > 0:
			spaces[l.start] = 2 * len(levels)
			levels = append(levels, n)
		case n < 0:
			for closed := -n; closed > 0 && len(levels) > 0; {
				top := &levels[len(levels)-1]
				if closed < *top {
					*top -= closed
					break
				}
				closed -= *top
				levels = levels[:len(levels)-1]
			}
			spaces[l.start] = 2 * len(levels)
		default:
			spaces[l.start] = 2 * len(levels)
		}
	}
	// No blanks at a line's end.
	for i, t := range toks {
		if t.Type == hclsyntax.TokenNewline {
			spaces[i] = 0
		}
	}
}

// align puts the "=" of each run of consecutive attribute lines one
// column after the longest lead, then likewise the trailing comments.
func align(toks hclsyntax.Tokens, spaces []int, lines []line) {
	cols := func(from, to int) int {
		n := 0
		for i := from; i < to; i++ {
			c, _ := textseg.TokenCount(toks[i].Bytes, textseg.ScanGraphemeClusters)
			n += spaces[i] + c
		}
		return n
	}
	run := func(has func(line) int, width func(line) int) {
		for i := 0; i < len(lines); {
			if has(lines[i]) < 0 {
				i++
				continue
			}
			j, widest := i, 0
			for ; j < len(lines) && has(lines[j]) >= 0; j++ {
				widest = max(widest, width(lines[j]))
			}
			for _, l := range lines[i:j] {
				spaces[has(l)] = widest - width(l) + 1
			}
			i = j
		}
	}
	run(func(l line) int { return l.assign }, func(l line) int { return cols(l.start, l.assign) })
	run(func(l line) int { return l.comment }, func(l line) int { return cols(l.start, l.comment) })
}

func bracket(t hclsyntax.Token) int {
	switch t.Type {
	case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenTemplateControl, hclsyntax.TokenTemplateInterp:
		return 1
	case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenTemplateSeqEnd:
		return -1
	}
	return 0
}

func net(ts hclsyntax.Tokens) int {
	n := 0
	for _, t := range ts {
		n += bracket(t)
	}
	return n
}
