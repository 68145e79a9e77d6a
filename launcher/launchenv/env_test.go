package launchenv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/childproof/childproof/launcher/failure"
	"github.com/childproof/childproof/outcome"
	"github.com/childproof/childproof/schema"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, ".env")
	os.WriteFile(envFile, []byte("FROM_FILE=f\nHF_HUB_ENABLE_HF_TRANSFER=1\nBASH_ENV=/evil\nexport PATH=/file/bin\n"), 0o644)
	caller := map[string]string{"PATH": "/usr/bin", "HOME": "/home/me", "SECRET": "s", "ENV": "/evil2", "LANG": "C"}
	lookup := func(n string) (string, bool) { v, ok := caller[n]; return v, ok }
	tests := []struct {
		name    string
		l       schema.Launch
		set     map[string]string
		want    map[string]string
		removed []string
	}{
		{name: "default inherit", l: schema.Launch{},
			want: map[string]string{"PATH": "/usr/bin", "HOME": "/home/me", "LANG": "C"}},
		{name: "empty inherit passes nothing", l: schema.Launch{Inherit: []string{}},
			want: map[string]string{}},
		{name: "file over inherit, overrides over file, set over env",
			l: schema.Launch{Inherit: []string{"PATH", "ENV"}, EnvFile: envFile,
				Env: map[string]string{"HF_HUB_ENABLE_HF_TRANSFER": "0", "K": "spec"}},
			set:     map[string]string{"K": "set"},
			want:    map[string]string{"PATH": "/file/bin", "FROM_FILE": "f", "HF_HUB_ENABLE_HF_TRANSFER": "0", "K": "set"},
			removed: []string{"BASH_ENV", "ENV"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Resolve(&tt.l, tt.set, lookup)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, e.Vars); d != "" {
				t.Errorf("Vars (-want +got):\n%s", d)
			}
			if len(tt.removed) > 0 || len(e.Removed) > 0 {
				if d := cmp.Diff(tt.removed, e.Removed); d != "" {
					t.Errorf("Removed (-want +got):\n%s", d)
				}
			}
		})
	}
	// inherit patterns match the caller's names; "*" passes all but BASH_ENV and ENV.
	gpu := map[string]string{"PATH": "/usr/bin", "CUDA_VISIBLE_DEVICES": "1", "CUDA_HOME": "/cuda", "NCCL_DEBUG": "INFO", "ENV": "/evil", "BASH_ENV": "/evil", "XCUDA_A": "x"}
	gpuLookup := func(n string) (string, bool) { v, ok := gpu[n]; return v, ok }
	gpuEnviron := func() []string {
		var out []string
		for k, v := range gpu {
			out = append(out, k+"="+v)
		}
		return out
	}
	for _, tc := range []struct {
		inherit []string
		want    map[string]string
	}{
		{[]string{"PATH", "CUDA_*"}, map[string]string{"PATH": "/usr/bin", "CUDA_VISIBLE_DEVICES": "1", "CUDA_HOME": "/cuda"}},
		{[]string{"NCCL_?EBUG", "CUDA_V*"}, map[string]string{"NCCL_DEBUG": "INFO", "CUDA_VISIBLE_DEVICES": "1"}},
		{[]string{"*"}, map[string]string{"PATH": "/usr/bin", "CUDA_VISIBLE_DEVICES": "1", "CUDA_HOME": "/cuda", "NCCL_DEBUG": "INFO", "XCUDA_A": "x"}},
	} {
		e, err := ResolveFrom(&schema.Launch{Inherit: tc.inherit}, nil, gpuLookup, gpuEnviron, false)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, e.Vars); d != "" {
			t.Errorf("inherit %q (-want +got):\n%s", tc.inherit, d)
		}
	}
	// Inside a SLURM step the step's variables and devices pass whatever
	// inherit says; a spec override still wins; outside a step they do not.
	step := map[string]string{"PATH": "/usr/bin", "SLURM_JOB_ID": "7", "SLURM_STEP_ID": "0", "CUDA_VISIBLE_DEVICES": "0",
		"ROCR_VISIBLE_DEVICES": "0", "GPU_DEVICE_ORDINAL": "0", "SLURM_JOB_GPUS": "0", "OTHER": "x"}
	stepLookup := func(n string) (string, bool) { v, ok := step[n]; return v, ok }
	stepEnviron := func() []string {
		var out []string
		for k, v := range step {
			out = append(out, k+"="+v)
		}
		return out
	}
	e, err := ResolveFrom(&schema.Launch{Inherit: []string{"PATH"}, Env: map[string]string{"GPU_DEVICE_ORDINAL": "3"}}, nil, stepLookup, stepEnviron, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PATH": "/usr/bin", "SLURM_JOB_ID": "7", "SLURM_STEP_ID": "0", "CUDA_VISIBLE_DEVICES": "0",
		"ROCR_VISIBLE_DEVICES": "0", "GPU_DEVICE_ORDINAL": "3", "SLURM_JOB_GPUS": "0"}
	if d := cmp.Diff(want, e.Vars); d != "" {
		t.Errorf("in a SLURM step (-want +got):\n%s", d)
	}
	delete(step, "SLURM_STEP_ID") // the batch script, outside srun
	e, err = ResolveFrom(&schema.Launch{Inherit: []string{"PATH"}}, nil, stepLookup, stepEnviron, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"PATH": "/usr/bin"}, e.Vars); d != "" {
		t.Errorf("outside a step (-want +got):\n%s", d)
	}
	if _, err := Resolve(&schema.Launch{EnvFile: filepath.Join(dir, "missing")}, nil, lookup); outcomeOf(err) != outcome.Usage {
		t.Errorf("missing env_file: %v, want exit 2", err)
	}
	if _, err := Resolve(&schema.Launch{}, map[string]string{"A=B": "x"}, lookup); outcomeOf(err) != outcome.Usage {
		t.Errorf("bad --set name: %v, want exit 2", err)
	}
}

// outcomeOf is err's Outcome, 255 when it is not an *Error.
func outcomeOf(err error) outcome.Kind {
	var e *failure.Error
	if errors.As(err, &e) {
		return e.Outcome
	}
	return 255
}

// TestMissingMessage: why a required name reached no source, and the hint
// that can help, per audience.
func TestMissingMessage(t *testing.T) {
	caller := func(n string) (string, bool) {
		if n == "EXPORTED" {
			return "v", true
		}
		return "", false
	}
	cli := failure.Words{Inherit: "inherit", Env: "env", EnvFile: "env_file", Export: "export"}
	for _, tc := range []struct {
		name      string
		l         schema.Launch
		w         failure.Words
		msg, hint string
	}{
		{"set but not passed, Go", schema.Launch{Require: []string{"EXPORTED"}}, GoWords,
			"EXPORTED is set in the caller but not passed: Inherit passes PATH, HOME, LANG (the default)", "add EXPORTED to Inherit, or give it a value in Env"},
		{"set but not passed, CLI", schema.Launch{Require: []string{"EXPORTED"}, Inherit: []string{"PATH"}}, cli,
			"EXPORTED is set in the caller but not passed: inherit passes PATH", "add EXPORTED to inherit, or give it a value in env"},
		{"inherited, unset", schema.Launch{Require: []string{"UNSET"}, Inherit: []string{"UNSET"}}, cli,
			"inherit passes it from the caller, and it is not set here", "export UNSET before launching, or give it a value in env"},
		{"named nowhere", schema.Launch{Require: []string{"NOWHERE"}}, GoWords,
			"NOWHERE is in no source (Env, EnvFile, Inherit) and not set in the caller", "give it a value in Env, or add NOWHERE to Inherit and set (t.Setenv in a test) NOWHERE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, hint := missingOf(&tc.l, tc.l.Require, caller).Say(tc.w)
			if !strings.Contains(msg, tc.msg) || hint != tc.hint {
				t.Errorf("got %q\nhint %q\nwant %q\nhint %q", msg, hint, tc.msg, tc.hint)
			}
		})
	}
}
