package testsupport

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Script returns a benchmark dispatch script of about lines lines (at least 10),
// generated from seed.
func Script(seed uint64, lines int) string {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var b strings.Builder
	n := 0
	w := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		n++
	}
	w("#!/usr/bin/env bash")
	w("# dispatch script %d: generated for benchmarks", seed)
	w("set -euo pipefail")
	w(`cd "$(dirname "$0")/.."`)
	w(`log() { printf '[%%s] %%s\n' "$(date +%%T)" "$*" >&2; }`)
	body := lines - 10
	for i := 0; n < body+5; i++ {
		switch r.IntN(9) {
		case 0:
			w("set -a; . ./.env; set +a")
		case 1:
			w(`export HF_HOME="${HF_HOME:-/data/hf}"`)
			w(`export HF_HUB_ENABLE_HF_TRANSFER=%d`, r.IntN(2))
		case 2:
			w("setup_%d() {", i)
			w(`  local dir="$1"`)
			w(`  mkdir -p "$dir/logs" "$dir/ckpt"`)
			w(`  log "setup $dir"`)
			w("}")
			w(`setup_%d "/scratch/run%d"`, i, i)
		case 3:
			w(`case "${1:-}" in`)
			for j := 0; j < 3; j++ {
				w(`  arm%d) export ARM=%d; shift ;;`, j, j)
			}
			w(`  *) log "unknown arm ${1:-}"; ;;`)
			w("esac")
		case 4:
			w(`for gpu in 0 1 2 3; do`)
			w(`  log "gpu $gpu: $(nvidia-smi -i "$gpu" --query-gpu=name --format=csv,noheader 2>/dev/null || echo none)"`)
			w("done")
		case 5:
			w(`if [ -f ./config.env ]; then`)
			w(`  . ./config.env`)
			w("fi")
		case 6:
			w(`: "${BATCH_SIZE:=%d}"`, 8<<r.IntN(4))
			w(`export BATCH_SIZE`)
		case 7:
			w(`while read -r line; do`)
			w(`  [ -n "$line" ] && log "$line"`)
			w(`done < ./notes.txt`)
		case 8:
			w(`MODEL_ARGS=(--model "m%d" --seed %d)`, i, r.IntN(1000))
		}
	}
	for n < lines-1 {
		w(`log "padding %d"`, n)
	}
	w(`exec python3 -m fits.run "${MODEL_ARGS[@]:-}" "$@"`)
	return b.String()
}

// ScriptSize returns the line count of the i-th script of a corpus of n scripts:
// log-uniform between 10 and 2,000 lines.
func ScriptSize(i, n int) int {
	if n <= 1 {
		return 10
	}
	f := float64(i) / float64(n-1)
	return int(math.Round(10 * math.Pow(200, f)))
}

// WriteCorpus writes a corpus of n scripts (log-uniform sizes 10–2,000 lines), a
// .env and a config.env into dir and returns the script paths.
func WriteCorpus(dir string, n int) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("HF_HUB_ENABLE_HF_TRANSFER=1\nHF_HOME=/data/hf\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.env"), []byte("BATCH_SIZE=16\n"), 0o644); err != nil {
		return nil, err
	}
	paths := make([]string, n)
	for i := range n {
		p := filepath.Join(dir, "scripts", fmt.Sprintf("dispatch%04d.sh", i))
		if err := os.WriteFile(p, []byte(Script(uint64(i), ScriptSize(i, n))), 0o755); err != nil {
			return nil, err
		}
		paths[i] = p
	}
	return paths, nil
}
