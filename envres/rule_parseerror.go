package envres

// ParseErrorRule is a script that cannot be read or parsed, reported as a
// finding of its own in whole-repository mode (Config.KeepGoing).
var ParseErrorRule = &Rule{
	Name: "parse-error", Severity: SeverityError,
	Short: "a script cannot be read or parsed",
	Doc: `A script given to lint (or found in a directory), or one the chain runs (bash F, ./F, exec F),
cannot be read or does not parse: a real syntax error, or a construct bash accepts and the parser
(mvdan.cc/sh) does not. Nothing in it is checked; the other scripts are. The CLI exits 2 after
printing every finding. Fix the syntax, or run the script with bash -n to compare.`,
	Run: runParseError,
}

// parse-error: every script that cannot be read or parsed.
func runParseError(p *Pass) {
	for _, u := range p.Unparsed {
		p.Report(u.At, u.Message+": nothing in this file is checked")
	}
}
