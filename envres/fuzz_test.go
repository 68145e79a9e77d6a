package envres

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// acceptanceSeeds returns the scripts of the shared acceptance cases, when
// they are present next to the checkout.
func acceptanceSeeds(tb testing.TB) []string {
	var out []string
	for _, dir := range []string{"../../shared/acceptance/lint", "/work/shared/acceptance/lint"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			// Every archived file is a seed; the case format is not needed.
			for _, part := range strings.Split(string(b), "\n-- ")[1:] {
				if i := strings.Index(part, " --\n"); i >= 0 {
					out = append(out, part[i+4:])
				}
			}
		}
		if len(out) > 0 {
			break
		}
	}
	return out
}

var inlineSeeds = []string{
	"#!/bin/bash\nexport HF_HUB_ENABLE_HF_TRANSFER=0\nexec bash dispatch.sh --arm 2\n",
	"#!/bin/bash\nset -a; . ./.env; set +a\nexec ./api \"$@\"\n",
	"#!/bin/sh\nnohup ./api --host 0.0.0.0 &\necho $! > pid\n",
	"#!/bin/bash\nexport $(grep -v '^#' .env | xargs)\neval \"$(cat .env)\"\nsource <(cat .env)\nexec env $(cat .env) ./api\n",
	"#!/bin/bash\nwhile read -r l; do export \"$l\"; done < .env\nf() { unset API_MODE; }\nf\n",
	"#!/bin/bash\ncase \"$1\" in a) exec sudo -i x;; b) su - u -c 'bash -lic x';; *) exec -c ./w;; esac\n",
	"#!/bin/bash\nDIR=$(cd \"$(dirname \"$0\")\" && pwd)\n. \"${BASH_SOURCE%/*}/x\"\n: \"${X:=1}\"\nbash -c 'bash -c \"exec ./w\"'\n",
	"#!/bin/bash\nf() { f; . ./self.sh; }\nf\n. \"$0\"\n( ( ( export X=1 ) ) ) | cat &\nwait\n",
	"#!/bin/bash\nfor i in 1 2 3; do export X$i=1; done\nselect x in a; do break; done\nX+=1 Y[2]=3\ndeclare -x -n Z=1\n",
	"\x00\x01binary",
	"#!/bin/bash\nif\n",
	"#!/bin/bash\necho ${!x} ${x:1:2} ${x/a/b} ${#x} $((1+2)) \"${@:2}\"\n",
	"#!/bin/bash\nsbatch -J x <<EOF\nexport $(cat .env | xargs)\nsrun ./w\nEOF\nssh -p 1 h bash -s <<'E'\nset -a; . ./.env\nE\ndocker exec -i c sh <<E\nexec bash -l\nE\n",
	"#!/bin/mksh\nx=${ echo a; } y=${|REPLY=b;} z=${%x} n=$((#-1))\nF=conf.envX\n. \"./${F%[!v]}\" \"${F##*[[:alpha:]]}\" \"${F%\"*\"}\"\n",
	"#!/bin/sh\nexport API_MODE=$API_MODE\nexec env-cmd -f .env python3 -m dotenv -f .env run -- setuser app bash -l -c ./w\n",
	"#!/bin/bash\nsu - \"$U\" -c \"$CMD\"\nrunuser -l \"$u\" -c ./w\nnpm run dev & yarn serve; pnpm --dir web dev -- --port 1\ncase $M in [!p]*) exec bun run x;; esac\n",
}

// FuzzLint checks that no input panics the analyzer and that every
// finding names a rule and a position inside the input.
func FuzzLint(f *testing.F) {
	for _, s := range append(acceptanceSeeds(f), inlineSeeds...) {
		f.Add(s, ".env body\nAPI_MODE=prod\n")
	}
	// The inputs that crashed the parser, just deeper than CheckNesting
	// allows (the fuzz function skips inputs over 64 KiB).
	for _, s := range deepScripts(MaxNesting + 1) {
		f.Add(s, "")
	}
	// One directory per fuzz process, rewritten for every input: a fresh
	// TempDir per input makes the fuzzer crawl. Inputs run one at a time.
	dir := f.TempDir()
	var mu sync.Mutex
	f.Fuzz(func(t *testing.T, script, envFile string) {
		if len(script) > 1<<16 || len(envFile) > 1<<14 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(envFile), 0o644); err != nil {
			t.Fatal(err)
		}
		// A second script the first may exec or source.
		if err := os.WriteFile(filepath.Join(dir, "self.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cfg := Config{Dir: dir, Scripts: []string{"run.sh"}, Args: []string{"a"},
			Overrides: []Override{{Name: "API_MODE", Value: "test", Known: true}, {Name: "X"}}, Require: []string{"KEY"}}
		res, err := Lint(ctx, cfg)
		if err != nil {
			return
		}
		lines := map[string]int{}
		for name, src := range res.Sources {
			lines[name] = strings.Count(string(src), "\n") + 1
		}
		for _, fd := range res.Findings {
			if RuleByName(fd.Rule) == nil {
				t.Fatalf("finding with unknown rule %q", fd.Rule)
			}
			n, ok := lines[fd.File]
			if !ok {
				t.Fatalf("finding in a file not read: %q", fd.File)
			}
			if fd.Line < 1 || fd.Line > n || fd.Column < 1 {
				t.Fatalf("finding %s at %s:%d:%d outside the input (%d lines)", fd.Rule, fd.File, fd.Line, fd.Column, n)
			}
		}
	})
}
