package envres

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWrapperOnWorkerPath: a wrapper is a finding only when the worker (or
// the part of the chain that starts it) runs under it (contract §4).
func TestWrapperOnWorkerPath(t *testing.T) {
	const sh = "#!/bin/bash\n"
	home := []Override{{Name: "HOME", Value: "/srv", Known: true}}
	runLintCases(t, []lintCase{
		{"sudo apt-get returns", map[string]string{"run.sh": sh + "sudo apt-get update\nsudo rm -rf \"$DIR\"\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"sudo -u psql returns", map[string]string{"run.sh": sh + "sudo -u postgres psql -c \"GRANT ALL\"\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"su -c createdb returns", map[string]string{"run.sh": sh + "su -c \"createdb app\" postgres\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"sudo tee in a pipe", map[string]string{"run.sh": sh + "echo x | sudo tee -a /etc/fstab\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"install script ends in sudo apt-get", map[string]string{"run.sh": sh + "sudo apt-get install -y jq\n"},
			Config{}, []at{}},
		{"exec sudo worker", map[string]string{"run.sh": sh + "exec sudo -u app ./api\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}}},
		{"sudo worker in the background", map[string]string{"run.sh": sh + "sudo ./api &\nwait\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}}},
		{"sudo worker last", map[string]string{"run.sh": sh + "sudo -u app ./api\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}}},
		{"sudo worker not last", map[string]string{"run.sh": sh + "sudo -u app ./migrate\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"sudo bash -c exec", map[string]string{"run.sh": sh + "sudo bash -c 'exec ./api'\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}}},
		{"sudo foreground script ends the chain", map[string]string{"run.sh": sh + "sudo bash start.sh\necho done\n", "start.sh": sh + "./api\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}}},
		{"sudo foreground script then the worker", map[string]string{"run.sh": sh + "sudo bash setup.sh\nexec ./api\n", "setup.sh": sh + "./prepare\n"},
			Config{Overrides: apiTest}, []at{}},
		{"sudo bash -c exec that returns", map[string]string{"run.sh": sh + "sudo -u postgres bash -c 'exec psql -c \"GRANT ALL\"'\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"sudo bash -c exec of the worker, last", map[string]string{"run.sh": sh + "sudo -u app bash -c 'cd /srv && exec ./api'\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}}},
		{"sudo bash -c with a server in the background", map[string]string{"run.sh": sh + "sudo -u app bash -c './api &'\necho started\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}, {"background-launch", "run.sh", 2, ""}}},
		{"bash -lc returns", map[string]string{"run.sh": sh + "bash -lc 'make build'\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"bash -lc worker", map[string]string{"run.sh": sh + "exec bash -lc './api'\n"},
			Config{Overrides: apiTest}, []at{{"login-shell", "run.sh", 2, ""}}},
		{"exec -l and -c", map[string]string{"run.sh": sh + "exec -cl ./api\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}, {"login-shell", "run.sh", 2, ""}}},
		{"exec -a name", map[string]string{"run.sh": sh + "exec -a api-main ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		// su and runuser by their manual.
		{"runuser -u keeps", map[string]string{"run.sh": sh + "exec runuser -u postgres -- ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"runuser -u changes HOME", map[string]string{"run.sh": sh + "exec runuser -u postgres -- ./api\n"},
			Config{Overrides: home}, []at{{"env-reset", "run.sh", 2, "HOME"}}},
		{"su keeps but HOME", map[string]string{"run.sh": sh + "exec su app -c './api'\n"},
			Config{Overrides: apiTest}, []at{}},
		{"su -m keeps HOME", map[string]string{"run.sh": sh + "exec su -m app -c './api'\n"},
			Config{Overrides: home}, []at{}},
		{"su - resets", map[string]string{"run.sh": sh + "exec su - app -c './api'\n"},
			Config{Overrides: apiTest}, []at{{"login-shell", "run.sh", 2, ""}}},
		{"su -c attached follows the string", map[string]string{"run.sh": sh + "exec su -c\"./entry.sh\" node\n",
			"entry.sh": sh + "set -a\n. ./.env\nset +a\nexec ./api\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "entry.sh", 3, "API_MODE"}}},
		{"sudo -E keeps", map[string]string{"run.sh": sh + "exec sudo -E -u app ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"sudo --preserve-env=LIST", map[string]string{"run.sh": sh + "exec sudo --preserve-env=API_MODE,PATH ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"env -i re-adds", map[string]string{"run.sh": sh + "exec env -i PATH=/bin API_MODE=\"$API_MODE\" ./api\n"},
			Config{Overrides: apiTest}, []at{}},
		{"transparent wrappers", map[string]string{"run.sh": sh + "exec nice -n5 ionice -c2 -n7 taskset -c 0-3 numactl --membind=0 stdbuf -oL timeout -k 5 1h gosu app setpriv --reuid=1 chpst -u app ./api --bind 0.0.0.0\n"},
			Config{Overrides: apiTest}, []at{{"all-interfaces", "run.sh", 2, ""}}},
		{"setpriv --reset-env", map[string]string{"run.sh": sh + "exec setpriv --reset-env --reuid=1 ./api\n"},
			Config{Overrides: apiTest}, []at{{"env-reset", "run.sh", 2, "API_MODE"}}},
		// Shebangs count whenever the script launches.
		{"shebang login with a worker", map[string]string{"run.sh": "#!/bin/bash -l\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{{"login-shell", "run.sh", 1, ""}}},
		{"shebang login with a returning last command", map[string]string{"run.sh": "#!/bin/bash -l\nsudo apt-get update\n"},
			Config{}, []at{{"login-shell", "run.sh", 1, ""}}},
		{"shebang login that launches nothing", map[string]string{"run.sh": "#!/bin/bash -l\nX=1\necho \"$X\"\n"},
			Config{}, []at{}},
		{"shebang of a script run by path", map[string]string{"run.sh": sh + "exec ./start.sh\n", "start.sh": "#!/usr/bin/env -S bash -i\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{{"interactive-shell", "start.sh", 1, ""}}},
	})
}

// TestCommandWordsInVariables: a command word held in a variable or an
// array whose value is known (on every path, or on some: "may") is judged
// as that word (contract §4).
func TestCommandWordsInVariables(t *testing.T) {
	const sh = "#!/bin/bash\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []at
		may   bool
	}{
		{"$SUDO set in one branch", map[string]string{"run.sh": sh + "SUDO=\"\"\nif [ \"$(id -u)\" -ne 0 ]; then SUDO=sudo; fi\nNODE=node\nexec $SUDO $NODE server.js\n"},
			[]at{{"env-reset", "run.sh", 5, "API_MODE"}}, true},
		{"$SUDO never set elsewhere", map[string]string{"run.sh": sh + "if [ -n \"$X\" ]; then SUDO=sudo; fi\nexec $SUDO ./api\n"},
			[]at{{"env-reset", "run.sh", 3, "API_MODE"}}, true},
		{"$SUDO on a command that returns", map[string]string{"run.sh": sh + "if [ -n \"$X\" ]; then SUDO=sudo; fi\n$SUDO apt-get update\nexec ./api\n"},
			[]at{}, false},
		{"$SUDO known on every path", map[string]string{"run.sh": sh + "SUDO='sudo -u app'\nexec $SUDO ./api\n"},
			[]at{{"env-reset", "run.sh", 3, "API_MODE"}}, false},
		{"array of literal words", map[string]string{"run.sh": sh + "CMD=(sudo -u app ./api)\nexec \"${CMD[@]}\"\n"},
			[]at{{"env-reset", "run.sh", 3, "API_MODE"}}, false},
		{"array spliced", map[string]string{"run.sh": sh + "CMD=(./api)\nCMD=(sudo \"${CMD[@]}\")\nCMD+=(--port 80)\nexec \"${CMD[@]}\"\n"},
			[]at{{"env-reset", "run.sh", 5, "API_MODE"}}, false},
		{"array set in one branch", map[string]string{"run.sh": sh + "CMD=(./api)\nif [ -n \"$ROOT\" ]; then CMD=(sudo \"${CMD[@]}\"); fi\nexec \"${CMD[@]}\" --port 1\n"},
			[]at{{"env-reset", "run.sh", 4, "API_MODE"}}, true},
		{"array of su -c", map[string]string{"run.sh": sh + "L=(su -c)\nL+=(\"exec ./api\" app)\n\"${L[@]}\"\n"},
			[]at{}, false},
		{"$PYTHON -m", map[string]string{"run.sh": sh + "PYTHON=python3\nexec $PYTHON -m http.server --bind 0.0.0.0\n"},
			[]at{{"all-interfaces", "run.sh", 3, ""}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := lintFiles(t, tc.files, Config{Overrides: apiTest})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, reduce(res)); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			for _, f := range res.Findings {
				if got := strings.Contains(f.Message, "some paths, so the command may run under it"); got != tc.may && f.Rule == "env-reset" {
					t.Errorf("%s: may wording %v, want %v: %s", f.Rule, got, tc.may, f.Message)
				}
			}
		})
	}
}
