package envres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/outcome"
)

// TestLintRequestConfig: the lint command's flags as a Config — an
// override with a value is known, a bare NAME is not (a value may hold
// '='); without "--" the positional parameters are unknown; whole
// repository mode always.
func TestLintRequestConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		req  LintRequest
		want Config
	}{
		{"zero", LintRequest{}, Config{ArgsUnknown: true, KeepGoing: true}},
		{"overrides", LintRequest{Dir: "d", Scripts: []string{"a.sh", "b.sh"}, Overrides: []string{"A=1", "B", "C=", "D=x=y"}, Require: []string{"R"}},
			Config{Dir: "d", Scripts: []string{"a.sh", "b.sh"}, ArgsUnknown: true, KeepGoing: true, Require: []string{"R"},
				Overrides: []Override{{Name: "A", Value: "1", Known: true}, {Name: "B"}, {Name: "C", Known: true}, {Name: "D", Value: "x=y", Known: true}}}},
		{"args given", LintRequest{Scripts: []string{"a.sh"}, Args: []string{"--arm", "2"}, ArgsGiven: true},
			Config{Scripts: []string{"a.sh"}, Args: []string{"--arm", "2"}, KeepGoing: true}},
		{"no args given", LintRequest{Scripts: []string{"a.sh"}, ArgsGiven: true},
			Config{Scripts: []string{"a.sh"}, KeepGoing: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, c.req.Config()); d != "" {
				t.Errorf("Config (-want +got):\n%s", d)
			}
		})
	}
}

// TestLintVerdict pins how a lint run ends and the lint command's words
// for it: Lint's errors and unparsed scripts are usage errors with their
// message, an error finding (with strict, any) is the findings outcome.
func TestLintVerdict(t *testing.T) {
	warn := Finding{Rule: "pidfile", Severity: SeverityWarning}
	bad := Finding{Rule: "login-shell", Severity: SeverityError}
	unparsed := func(file string, line int) Finding {
		return Finding{Rule: ParseErrorRule.Name, Severity: SeverityError, Pos: Pos{File: file, Line: line, Column: 4}, Message: "`if` must be followed by a statement list"}
	}
	type want struct {
		err  string // "" for nil
		kind outcome.Kind
	}
	for _, c := range []struct {
		name string
		err  error // the error: Verdict's of a result, or a *LintRunError of Lint's
		want want
	}{
		{"clean", (&Result{}).Verdict(false), want{}},
		{"warning", (&Result{Findings: []Finding{warn}}).Verdict(false), want{}},
		{"warning, strict", (&Result{Findings: []Finding{warn}}).Verdict(true), want{"lint: 1 finding(s), warnings counted (strict)", outcome.Findings}},
		{"error", (&Result{Findings: []Finding{warn, bad, bad}}).Verdict(false), want{"lint: 2 finding(s) of severity error", outcome.Findings}},
		{"one unparsed", (&Result{Findings: []Finding{bad, unparsed("a.sh", 2)}}).Verdict(false),
			want{"a.sh:2:4: `if` must be followed by a statement list", outcome.Usage}},
		{"three unparsed", (&Result{Findings: []Finding{unparsed("a.sh", 2), bad, unparsed("b.sh", 1), unparsed("c.sh", 3)}}).Verdict(false),
			want{"a.sh:2:4: `if` must be followed by a statement list (and 2 more file(s) that do not parse)", outcome.Usage}},
		{"parse error", &LintRunError{Err: fmt.Errorf("lint: %w", &ParseError{Pos: Pos{File: "x.sh"}, Msg: "no such file"})},
			want{"x.sh: no such file", outcome.Usage}},
		{"config error", &LintRunError{Err: fmt.Errorf("wrapped: %w", badConfig(nil, "invalid variable name %q", "1X"))},
			want{`invalid configuration: invalid variable name "1X"`, outcome.Usage}},
		{"other error", &LintRunError{Err: errors.New("context canceled")}, want{"context canceled", outcome.Usage}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got want
			if c.err != nil {
				got = want{c.err.Error(), outcome.Of(c.err)}
			}
			if d := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("verdict (-want +got):\n%s", d)
			}
		})
	}
}

// TestRunLint: Lint's errors come back as a *LintRunError around them;
// a script that does not parse is a finding in whole-repository mode.
func TestRunLint(t *testing.T) {
	dir := writeTree(t, map[string]string{"bad.sh": "#!/bin/bash\nif then\n"})
	_, err := RunLint(context.Background(), Config{Dir: dir, Scripts: []string{"bad.sh"}, Overrides: []Override{{Name: "1X"}}})
	var le *LintRunError
	var ce *ConfigError
	if !errors.As(err, &le) || !errors.As(err, &ce) || err.Error() != ce.Problem {
		t.Errorf("bad override: %v, want a *LintRunError around a *ConfigError, its Problem as message", err)
	}
	res, err := RunLint(context.Background(), LintRequest{Dir: dir, Scripts: []string{"bad.sh"}}.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Verdict(false); !errors.As(err, &le) || len(le.Unparsed) != 1 {
		t.Errorf("Verdict = %v, want a *LintRunError with one unparsed script", err)
	}
}
