#!/usr/bin/env bash
# childproof demo: the five field failures of docs/background, on the shipped
# examples. Usage: examples/demo.sh BINARY   (make demo builds and runs it)
#
# Every step states what it expects. A step that fails on purpose (a broken
# launcher caught by `check`) is shown loudly and the demo goes on; the demo
# exits non-zero only when a step's outcome differs from what it expects.
set -uo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 BINARY" >&2
	exit 2
fi
CP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
[ -x "$CP" ] || { echo "demo: $CP is not an executable" >&2; exit 2; }

# The examples run bin/mock-llm; make build builds it. Build it here when
# the demo is run on its own.
if [ ! -x bin/mock-llm ] && command -v go >/dev/null; then
	go build -o bin/mock-llm ./examples/mock-llm || exit 2
fi

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
	B=$'\e[1m' R=$'\e[1;31m' G=$'\e[1;32m' Y=$'\e[1;33m' D=$'\e[2m' N=$'\e[0m'
else
	B= R= G= Y= D= N=
fi

unexpected=0
declare -a summary

# step EXPECTED_EXIT TITLE -- ARGS… : run childproof ARGS, show its output
# indented, and compare the exit status with EXPECTED_EXIT.
step() {
	local want=$1 title=$2
	shift 3
	printf '\n%s━━ %s%s\n' "$B" "$title" "$N"
	printf '%s$ childproof %s%s\n' "$D" "$*" "$N"
	local out rc
	out=$("$CP" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	if [ "$rc" -eq "$want" ]; then
		if [ "$want" -eq 0 ]; then
			printf '%s✔ exit %d, as expected%s\n' "$G" "$rc" "$N"
		else
			printf '%s✘ exit %d — EXPECTED: childproof refuses this one%s\n' "$Y" "$rc" "$N"
		fi
		summary+=("ok        exit $rc (want $want)  $title")
	else
		printf '%s!! exit %d, but this step expects %d%s\n' "$R" "$rc" "$want" "$N"
		summary+=("UNEXPECTED exit $rc (want $want)  $title")
		unexpected=$((unexpected + 1))
	fi
}

E=examples
printf '%schildproof demo%s — %s\n' "$B" "$N" "$("$CP" version 2>/dev/null)"
printf 'Each example is one field failure; "broken" launches are the way it went wrong,\n'
printf '"fixed" launches the way childproof runs it. Nothing runs in this part: check only.\n'

step 1 "1. login shell: bash -lic in the launcher is caught" -- check $E/01-login-shell/childproof.hcl:login-shell-broken
step 0 "1. login shell: exec the binary directly" -- check $E/01-login-shell/childproof.hcl:login-shell-fixed
step 0 "2. stale listener: the spec refuses strangers and stale instances" -- check $E/02-stale-listener/childproof.hcl
step 1 "3. dispatcher re-sources .env: the clobber is found before launch" -- check $E/03-dispatch-resource-env/childproof.hcl:resource-env-broken
step 0 "3. dispatcher re-sources .env: env_file loaded by childproof, overrides win" -- check $E/03-dispatch-resource-env/childproof.hcl:resource-env-fixed
step 0 "4. borrowed box: nohup &, a pidfile and 0.0.0.0 are warnings" -- check $E/04-borrowed-box/childproof.hcl:ghosts-broken
step 1 "4. borrowed box: … and failures with --strict" -- check --strict $E/04-borrowed-box/childproof.hcl:ghosts-broken
step 0 "4. borrowed box: loopback, fingerprinted, our own stale instance replaced" -- check $E/04-borrowed-box/childproof.hcl:ghosts-fixed
step 2 "4. borrowed box: a spec asking for 0.0.0.0 without saying so is invalid" -- check $E/04-borrowed-box/bad-bind.hcl
step 0 "5. surplus signal: a stoppable server and a worker that exits early" -- check $E/05-surplus-signal/childproof.hcl
step 0 "many launches: depends_on and a restart policy" -- check $E/06-up-depends/childproof.hcl
step 0 "machine-readable: check --format json" -- check --format json $E/01-login-shell/childproof.hcl:login-shell-fixed

# Any other spec under examples/ is checked too, with no expectation.
for spec in $E/*/*.hcl; do
	case $spec in
	$E/01-login-shell/childproof.hcl | $E/02-stale-listener/childproof.hcl | \
		$E/03-dispatch-resource-env/childproof.hcl | $E/04-borrowed-box/childproof.hcl | \
		$E/04-borrowed-box/bad-bind.hcl | $E/05-surplus-signal/childproof.hcl | \
		$E/06-up-depends/childproof.hcl) continue ;;
	esac
	printf '\n%s━━ other example: %s%s\n' "$B" "$spec" "$N"
	"$CP" check "$spec" 2>&1 | sed 's/^/    /'
	summary+=("checked   exit ${PIPESTATUS[0]}  $spec")
done

# ────────────────────────────────────────────────────────────────────────────
# RUN / EXPLAIN / STOP STEPS — owned by the launcher engineer.
# Add steps below with the same helper, e.g.
#   step 0 "1. login shell: run, verified on the worker" -- run --detach $E/01-login-shell/childproof.hcl:login-shell-fixed
# Every process a step starts must be stopped by a later step.
# ────────────────────────────────────────────────────────────────────────────

# The launch steps keep their records and logs in a state dir of their own:
# $CHILDPROOF_STATE_DIR when the caller set it (kept afterwards), else
# $CHILDPROOF_DEMO_STATE (kept), else a temporary one (removed at the end).
demo_tmp_state=
if [ -z "${CHILDPROOF_STATE_DIR:-}" ]; then
	if [ -n "${CHILDPROOF_DEMO_STATE:-}" ]; then
		CHILDPROOF_STATE_DIR=$CHILDPROOF_DEMO_STATE
	else
		CHILDPROOF_STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/childproof-demo.XXXXXX")
		demo_tmp_state=$CHILDPROOF_STATE_DIR
	fi
fi
export CHILDPROOF_STATE_DIR
export MOCK_LLM_KEY=${MOCK_LLM_KEY:-demo-key}
printf '\n%sThe main job: launch, prove on the worker, explain, stop.%s State dir: %s\n' "$B" "$N" "$CHILDPROOF_STATE_DIR"

L1=$E/01-login-shell/childproof.hcl:login-shell-fixed
step 0 "1. run --detach: exec'd directly, verified on the worker's own /proc records" -- run --detach $L1
step 0 "1. verify again, read-only, as contract JSON" -- verify --format json $L1
step 0 "1. explain MOCK_LLM_KEY on every process down to the worker (digests, never values)" -- explain $L1 MOCK_LLM_KEY
step 0 "census: ps" -- ps
# Our own instance still runs: refused with the lock's exit 6 (exit 4 is for a port held by a
# process childproof did not start, story 2 below); cmd/childproof's run_detach.txtar tests it.
step 6 "1. a second launch of the same name is refused: our own instance still runs (on_stale = fail)" -- run --detach $L1
step 0 "1. stop: SIGTERM the group through a pidfd, only if the fingerprint matches" -- stop login-shell-fixed

# Story 2: a stale server childproof did not start holds the port.
if [ -x bin/mock-llm ]; then
	MOCK_LLM_KEY=stale-key bin/mock-llm --addr 127.0.0.1:18082 >/dev/null 2>&1 &
	stale=$!
	for _ in $(seq 100); do "$CP" ps >/dev/null 2>&1; (exec 3<>/dev/tcp/127.0.0.1/18082) 2>/dev/null && break; sleep 0.05; done
	step 4 "2. a stranger holds the port: exit 4 with a census line, and it is left alone" -- run --detach $E/02-stale-listener/childproof.hcl
	kill "$stale" 2>/dev/null # the demo's own stale server, by its own pid
	wait "$stale" 2>/dev/null
fi

# Story 3: the dispatcher that re-sources .env.
L3=$E/03-dispatch-resource-env/childproof.hcl
step 1 "3. run refuses the clobbering dispatcher before anything starts (lint)" -- run --detach $L3:resource-env-broken
step 3 "3. ... and with --no-lint the worker's own environ proves it: env-mismatch, tree stopped" -- run --no-lint --detach $L3:resource-env-broken
step 0 "3. the fixed launch: env_file loaded by childproof, the override wins on the worker" -- run --detach $L3:resource-env-fixed
step 0 "3. explain HF_HUB_ENABLE_HF_TRANSFER: intended value vs every process" -- explain $L3:resource-env-fixed HF_HUB_ENABLE_HF_TRANSFER
step 0 "3. stop it" -- stop $L3:resource-env-fixed

# Story 5: a worker that exits before it is ready is exit 5 at once, with its last lines.
step 5 "5. the worker exits before ready: its status and last lines, not a time-out" -- run $E/05-surplus-signal/childproof.hcl:surplus-early-exit
# Many launches: up starts model, verifies it, then router (depends_on); down stops router first.
L6=$E/06-up-depends/childproof.hcl
step 0 "many launches: up --detach, each verified before what depends on it" -- up --detach $L6
step 0 "census: ps shows the file's launches together" -- ps
step 0 "down: reverse depends_on order, each only if its fingerprint matches" -- down $L6

# Migration: a spec from story 3's hand-written launcher, without the script.
step 0 "import: story 3's launch.sh as a spec (env_file loaded by childproof, the export wins)" -- import $E/03-dispatch-resource-env/launch.sh -- --arm 2
step 0 "census: ps --all" -- ps --all
if [ -n "$demo_tmp_state" ]; then rm -rf "$demo_tmp_state"; fi

# ── END OF RUN / EXPLAIN / STOP STEPS ───────────────────────────────────────

# ── EXPORT ──────────────────────────────────────────────────────────────────
# Story 3's fixed launch rendered for other engines, with childproof verify in each
# engine's check slot. The files under examples/03-dispatch-resource-env/exported/ are
# these outputs (docs/export.md walks through them); cmd/childproof's TestExportedExamples
# fails when they are stale. --dir writes the paths as if the repository were in
# /opt/childproof, so the files do not depend on this checkout's location.
X=$E/03-dispatch-resource-env
XO=(--dir /opt/childproof/examples/03-dispatch-resource-env --childproof /usr/local/bin/childproof)
mkdir -p "$X/exported"
step 0 "export: a systemd unit (ExecStartPost= verify; secrets in an EnvironmentFile= you create)" -- export --to systemd $X/childproof.hcl:resource-env-fixed "${XO[@]}" -o $X/exported/resource-env-fixed.service
sed -n '/^\[Service\]/,/^$/p' "$X/exported/resource-env-fixed.service" | sed 's/^/    /'
step 0 "export: a Kubernetes Deployment (startup/readiness probes exec verify --pid 1; secrets as secretKeyRefs)" -- export --to k8s $X/childproof.hcl:resource-env-fixed "${XO[@]}" --image registry.example/mock-llm:demo --childproof-image registry.example/childproof:demo -o $X/exported/resource-env-fixed.k8s.yaml
step 0 "export: a SLURM batch script (the step is srun childproof run)" -- export --to slurm $X/childproof.hcl:resource-env-fixed "${XO[@]}" -o $X/exported/resource-env-fixed.sbatch
step 0 "export: a Nomad job (a script check runs verify; secrets from Nomad variables)" -- export --to nomad $X/childproof.hcl:resource-env-fixed "${XO[@]}" -o $X/exported/resource-env-fixed.nomad.hcl
if command -v systemd-analyze >/dev/null; then
	printf '%s$ systemd-analyze verify %s%s
' "$D" "$X/exported/resource-env-fixed.service" "$N"
	# The unit's paths are /opt/childproof's; systemd-analyze checks that its programs exist.
	systemd-analyze verify "$X/exported/resource-env-fixed.service" 2>&1 | grep -v 'is not executable: No such file or directory' | sed 's/^/    /'
fi
# ── END OF EXPORT ───────────────────────────────────────────────────────────

printf '\n%sSummary%s\n' "$B" "$N"
for line in "${summary[@]}"; do
	case $line in
	UNEXPECTED*) printf '  %s%s%s\n' "$R" "$line" "$N" ;;
	*) printf '  %s\n' "$line" ;;
	esac
done
if [ "$unexpected" -gt 0 ]; then
	printf '%s%d step(s) did not do what they expect%s\n' "$R" "$unexpected" "$N"
	exit 1
fi
printf '%sall steps did what they expect%s\n' "$G" "$N"
