package envres

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genDispatch writes a realistic dispatch script of about n lines: a
// header that finds its directory and loads env files, helper functions,
// a big case over "arms" that export settings and exec workers, loops,
// conditionals and here and there a wrapper.
func genDispatch(n int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\nset -euo pipefail\n")
	b.WriteString("DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\ncd \"$DIR\"\n")
	b.WriteString("if [ -f .env ]; then set -a; . ./.env; set +a; fi\n")
	b.WriteString("log() { printf '%s %s\\n' \"$(date +%T)\" \"$*\" >&2; }\n")
	b.WriteString("die() { log \"error: $*\"; exit 1; }\n")
	lines := 7
	fn := 0
	for lines < n*2/5 {
		fn++
		fmt.Fprintf(&b, "setup_%d() {\n  local arm=\"$1\"\n  export VAR_%d=\"${VAR_%d:-%d}\"\n", fn, fn, fn, r.Intn(100))
		lines += 3
		switch r.Intn(4) {
		case 0:
			fmt.Fprintf(&b, "  if [ \"$arm\" = %d ]; then\n    export MODE_%d=fast\n  else\n    export MODE_%d=slow\n  fi\n", fn, fn, fn)
			lines += 5
		case 1:
			fmt.Fprintf(&b, "  for x in a b c; do\n    log \"step $x for %d\"\n  done\n", fn)
			lines += 3
		case 2:
			fmt.Fprintf(&b, "  [ -n \"${OPT_%d:-}\" ] && export OPT_%d\n", fn, fn)
			lines++
		case 3:
			fmt.Fprintf(&b, "  case \"$arm\" in\n    1) export LEVEL=1 ;;\n    2) export LEVEL=2 ;;\n    *) : ;;\n  esac\n")
			lines += 5
		}
		b.WriteString("}\n")
		lines++
	}
	b.WriteString("arm=\"${DISPATCH_ARM:-${1:-0}}\"\nshift || true\ncase \"$arm\" in\n")
	lines += 3
	i := 0
	for lines < n-3 {
		i++
		fmt.Fprintf(&b, "  %d)\n", i)
		fmt.Fprintf(&b, "    setup_%d \"$arm\"\n", 1+r.Intn(max(fn, 1)))
		fmt.Fprintf(&b, "    export RUN_NAME=run_%d HF_HUB_ENABLE_HF_TRANSFER=0\n", i)
		lines += 3
		switch r.Intn(6) {
		case 0:
			b.WriteString("    exec python3 -m fits.run --arm \"$arm\" \"$@\"\n")
		case 1:
			b.WriteString("    exec torchrun --nproc_per_node 2 train.py --host 127.0.0.1 \"$@\"\n")
		case 2:
			b.WriteString("    [ -f extra.env ] && source extra.env\n    exec ./bin/worker \"$@\"\n")
			lines++
		case 3:
			b.WriteString("    ( cd sub && ./prepare.sh )\n    exec ./bin/worker --port 8000\n")
			lines++
		case 4:
			b.WriteString("    while read -r line; do log \"$line\"; done < manifest.txt\n    exec ./bin/worker\n")
			lines++
		case 5:
			b.WriteString("    timeout 30 ./bin/check || die \"check failed\"\n    exec nice -n 10 ./bin/worker\n")
			lines++
		}
		b.WriteString("    ;;\n")
		lines += 2
	}
	b.WriteString("  *) die \"unknown arm $arm\" ;;\nesac\n")
	return b.String()
}

// writeCorpus writes n generated scripts (and an .env) into dir.
func writeCorpus(tb testing.TB, dir string, n, lines int) []string {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("HF_HUB_ENABLE_HF_TRANSFER=1\nHF_HOME=/data/hf\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	var names []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("dispatch_%04d.sh", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(genDispatch(lines, int64(i))), 0o755); err != nil {
			tb.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}
