package main

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/outcome"
)

func TestSecretSets(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "KEY": "k3y", "EMPTY": ""}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	tests := []struct {
		name     string
		names    []string
		set      map[string]string
		want     []string
		wantSet  map[string]string
		wantErr  string
		wantHint bool
	}{
		{name: "none", set: map[string]string{"A": "1"}, wantSet: map[string]string{"A": "1"}},
		{name: "read in order", names: []string{"TOKEN", "KEY"}, set: map[string]string{"A": "1"},
			want: []string{"TOKEN", "KEY"}, wantSet: map[string]string{"A": "1", "TOKEN": "t0k", "KEY": "k3y"}},
		{name: "an empty value is a value", names: []string{"EMPTY"}, set: map[string]string{},
			want: []string{"EMPTY"}, wantSet: map[string]string{"EMPTY": ""}},
		{name: "NAME=VALUE is refused without the value", names: []string{"TOKEN=s3cret"}, set: map[string]string{},
			wantSet: map[string]string{}, wantErr: "--set-secret TOKEN: takes a NAME, not NAME=VALUE", wantHint: true},
		{name: "empty name", names: []string{""}, set: map[string]string{}, wantSet: map[string]string{}, wantErr: "--set-secret: empty name"},
		{name: "invalid name", names: []string{"1X"}, set: map[string]string{}, wantSet: map[string]string{},
			wantErr: `--set-secret "1X": not a valid environment variable name (letters, digits and _, not starting with a digit), the same rule as a spec's env`},
		{name: "also a --set", names: []string{"TOKEN"}, set: map[string]string{"TOKEN": "x"}, wantSet: map[string]string{"TOKEN": "x"},
			wantErr: "--set TOKEN and --set-secret TOKEN: give one of them"},
		{name: "not in the environment", names: []string{"KEY", "MISSING"}, set: map[string]string{}, wantSet: map[string]string{"KEY": "k3y"},
			wantErr: "--set-secret MISSING: MISSING is not set in the caller's environment", wantHint: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := secretSets(tt.names, tt.set, lookup)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("SecretSets: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("names (-want +got):\n%s", diff)
				}
			} else {
				var e *exitError
				if !errors.As(err, &e) || e.code != outcome.Usage {
					t.Fatalf("err = %#v; want a usage *exitError", err)
				}
				if diff := cmp.Diff(tt.wantErr, e.Error()); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
				if (e.hint != "") != tt.wantHint {
					t.Errorf("hint = %q; want one: %v", e.hint, tt.wantHint)
				}
			}
			if diff := cmp.Diff(tt.wantSet, tt.set); diff != "" {
				t.Errorf("set (-want +got):\n%s", diff)
			}
		})
	}
}
