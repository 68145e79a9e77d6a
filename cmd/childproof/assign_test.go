package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAssignSyntax(t *testing.T) {
	tests := []struct {
		syntax  assignSyntax
		args    []string
		want    []assignment
		wantErr string // a part of the error, "" for none
	}{
		{varSyntax, []string{"port=18081", "name=a=b", "empty="}, []assignment{{"port", "18081", true}, {"name", "a=b", true}, {"empty", "", true}}, ""},
		{varSyntax, []string{"port"}, nil, "--var (argument 1 of --var): no '=', want K=V"},
		{varSyntax, []string{"a=1", "=1"}, nil, "--var (argument 2 of --var): a value without a name"},
		{varSyntax, []string{"with-dash=1"}, []assignment{{"with-dash", "1", true}}, ""},
		{setSyntax, []string{"A=1"}, []assignment{{"A", "1", true}}, ""},
		{setSyntax, []string{"NOEQUALS"}, nil, "--set (argument 1 of --set): no '=', want NAME=VALUE"},
		{setSyntax, []string{"BAD NAME=x"}, nil, `--set: "BAD NAME" is not a valid environment variable name`},
		{envSyntax, []string{"A", "B=2"}, []assignment{{"A", "", false}, {"B", "2", true}}, ""},
		{envSyntax, []string{""}, nil, "--env (argument 1 of --env): an empty name"},
		{overrideSyntax, []string{"=secret"}, nil, "--override (argument 1 of --override): a value without a name, want NAME or NAME=VALUE"},
		{explainSyntax, []string{"A", "=x"}, nil, "explain: NAME argument 2: a value without a name, want NAME or NAME=VALUE"},
	}
	for _, tt := range tests {
		got, err := tt.syntax.parse(tt.args)
		if tt.wantErr != "" {
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitUsage || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s parse(%q) = %v, want a usage error with %q", tt.syntax.who, tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s parse(%q): %v", tt.syntax.who, tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s parse(%q) (-want +got):\n%s", tt.syntax.who, tt.args, diff)
		}
	}
}

// FuzzAssignSyntax: an error never repeats what follows the first '='
// (a value).
func FuzzAssignSyntax(f *testing.F) {
	f.Add("A=canary-value")
	f.Add("=canary-value")
	f.Add("BAD NAME=canary-value")
	f.Fuzz(func(t *testing.T, arg string) {
		name, v, ok := strings.Cut(arg, "=")
		// The name may be quoted in the error: a value that is also (in)
		// the name ("000000=000000") is found there, not leaked.
		unname := func(msg string) string { return strings.ReplaceAll(msg, fmt.Sprintf("%q", name), "NAME") }
		for _, s := range []assignSyntax{varSyntax, setSyntax, envSyntax, overrideSyntax, explainSyntax} {
			_, err := s.parse([]string{arg})
			if err == nil || !ok || len(v) < 6 {
				continue
			}
			var ee *exitError
			errors.As(err, &ee)
			if strings.Contains(unname(err.Error()), v) && !strings.Contains(s.at+s.form+s.who+"not a valid environment variable name a value without a name, want NAME or NAME=VALUE; the value is not shown", v) || ee != nil && strings.Contains(unname(ee.hint), v) {
				t.Errorf("%s: the error %q repeats the value %q", s.who, err, v)
			}
		}
	})
}
