# childproof — make targets. `make demo` runs the main job on the shipped
# examples; `make test` is what CI runs.
GO      ?= go
BIN     := bin/childproof
SHARED  ?= ../shared
FUZZTIME ?= 60s
# START is when this make began; each stage of make test prints the seconds
# since then as it ends ("== unit: ended at 412 s").
# Sub-makes get it on their command line, so a stage's time is since the
# start of make test, whichever make runs it.
START := $(shell date +%s)
ELAPSED = $$(( $$(date +%s) - $(START) ))

# The test stages start python3 about 90 times through PATH (19 in the
# testscripts, 9 in other packages' tests, 3 in each of library's 20 runs,
# the acceptance runner). Where python3 on PATH is a version manager's shim
# (pyenv's: a bash script that runs pyenv exec, about 0.5 CPU-s a start
# where the interpreter takes 0.08), the test stages find first on PATH
# bin/py3/python3, a link to the interpreter the shim starts: the same
# interpreter without the shim (comm python3, the same exe). Only python3
# is put there: the interpreter's own directory may hold another go or
# pip. Where python3 is the interpreter itself, a venv's (on PATH, or the
# one a pyenv-virtualenv shim starts: a link to a venv's python does not
# make the venv), or missing, PATH stays as it is; so does it with PY3LINK=
# on make's command line.
# Sub-makes find PY3LINK in their environment and leave PATH alone.
ifeq ($(origin PY3LINK),undefined)
ifneq ($(filter test test-serial test-lane compile-lane unit library acceptance cpu-%,$(MAKECMDGOALS)),)
PY3LINK := $(shell p=$$(command -v python3) && \
	exe=$$(python3 -c 'import os, sys; e = sys.executable; print(e if e and sys.prefix == sys.base_prefix and os.path.realpath(e) != os.path.realpath(sys.argv[1]) else "")' "$$p" 2>/dev/null) && \
	[ -n "$$exe" ] && mkdir -p bin/py3 && ln -sfn "$$exe" bin/py3/python3 && echo "$(CURDIR)/bin/py3")
export PY3LINK
ifneq ($(PY3LINK),)
export PATH := $(PY3LINK):$(PATH)
endif
endif
endif

# $(call progress,STAGE,COMMAND) runs COMMAND and, while it runs, prints
# "STAGE: running for N s" every minute: a stage whose commands print
# nothing until they end (a package's tests, a compile) still shows it is
# alive. Its exit status is COMMAND's.
progress = t0=$$(date +%s); \
	( trap 'kill $$s 2>/dev/null; exit 0' TERM; \
	  while :; do sleep 60 & s=$$!; wait $$s; echo "$(1): running for $$(( $$(date +%s) - t0 )) s"; done ) & tick=$$!; \
	$(2); rc=$$?; kill $$tick; wait $$tick; exit $$rc

.PHONY: all build test test-serial test-lane compile-lane testbins unit k8svalidation differential library vet fmtcheck cross acceptance demo bench fuzz fuzz-build fuzz-ci clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -trimpath -o $(BIN) ./cmd/childproof
	$(GO) build -o bin/mock-llm ./examples/mock-llm

vet:
	@echo "== vet: go vet ./..."
	@$(call progress,vet,$(GO) vet ./...)
	@echo "== vet: ended at $(ELAPSED) s"

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	@echo "== fmtcheck: ended at $(ELAPSED) s"

# lint, check, import and export run on reviewers' macOS and Windows
# machines: the binary must build there (its launching commands exit 2 with
# "needs Linux"), and every package and test file must compile there too
# (vet type-checks the tests; Linux-only tests live in _linux_test.go files).
# Each step prints a line as it ends; on an empty build cache the first
# ones compile the standard library for that platform (minutes).
cross:
	@echo "== cross: build for darwin/arm64, darwin/amd64, windows/amd64; vet for darwin and windows"
	@for p in darwin/arm64 darwin/amd64 windows/amd64; do \
		t0=$$(date +%s); \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/childproof || exit 1; \
		echo "cross: built ./cmd/childproof for $$p ($$(( $$(date +%s) - t0 )) s)"; \
	done
	@for p in darwin/arm64 windows/amd64; do \
		t0=$$(date +%s); \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./... || exit 1; \
		echo "cross: vetted ./... for $$p ($$(( $$(date +%s) - t0 )) s)"; \
	done
	@echo "== cross: ended at $(ELAPSED) s"

# go test's default 10-minute limit per test binary is a quiet machine's:
# cmd/childproof's tests (hundreds of testscripts, the chaos test) took
# 592 s under -race at load 25 on two cores and were cut there. TESTTIMEOUT
# bounds a hung test, not a slow machine.
TESTTIMEOUT ?= 40m
# go test runs a subset of go vet's checks on each package it tests; make
# test's vet stage has already run all of them on every package and its
# tests, so the stages' go test commands skip them (VETFLAG= puts them back).
VETFLAG ?= -vet=off
# The stages' test binaries are linked without DWARF (-ldflags=-w): about a
# fifth of each link's CPU (launcher's race test binary: 3.9 -> 3.0 CPU-s,
# 27 -> 22 MB), and nothing reads it: stack traces and the race detector's
# reports come from the symbol and line tables the binary keeps. TESTLDFLAGS=
# puts it back (for a debugger).
TESTLDFLAGS ?= -ldflags=-w

# UNIT_FIRST are the packages whose tests take longest (CI's run at 21d84a5,
# load 4-6: cmd/childproof 364 s, export/enginetest 247 s, realservers 175 s,
# launcher 117 s); go test starts the packages in the order it is given
# them, two at a time, so these start first and the short ones fill in
# beside them, instead of a long one starting near the end (./... is
# alphabetical). go test lists each package once; its lines come in this
# order.
UNIT_FIRST = ./cmd/childproof ./export/enginetest ./realservers ./launcher

# testbins builds, once for unit and library, the servers that test
# binaries would each build for themselves, and TESTENV hands them over by
# the variables the tests' TestMains take a prebuilt one from:
# launcher/testdata/testserver (launcher, launchertest and group build it,
# -race=false, BuildProgram: CHILDPROOF_TESTSERVER) and examples/mock-llm
# (examples/library: CHILDPROOF_MOCK_LLM), each a link of about 1.4 CPU-s:
# seven builds in unit and library become two, linked at once by one go
# build (none when they are up to date). Not bin/mock-llm: the compile
# lane's acceptance builds that one beside the tests running this one.
TESTBIN := bin/test
TESTENV = CHILDPROOF_TESTSERVER=$(CURDIR)/$(TESTBIN)/testserver CHILDPROOF_MOCK_LLM=$(CURDIR)/$(TESTBIN)/mock-llm
testbins:
	@mkdir -p $(TESTBIN) && $(GO) build -race=false -o $(TESTBIN)/ ./launcher/testdata/testserver ./examples/mock-llm

unit: testbins
	@echo "== unit: every package's tests under the race detector (one line per package, the longest first)"
	@$(call progress,unit,$(TESTENV) GORACE=atexit_sleep_ms=0 $(GO) test $(VETFLAG) $(TESTLDFLAGS) -race -count=1 -timeout $(TESTTIMEOUT) $(UNIT_FIRST) ./...)
	@echo "== unit: ended at $(ELAPSED) s"

acceptance: build
	@echo "== acceptance: the shared lint cases, each script against its expected findings (the last line counts cases)"
	@if [ -d $(SHARED)/acceptance/lint ]; then \
		python3 $(SHARED)/acceptance/run-lint.py ./$(BIN) $(SHARED)/acceptance/lint; \
	else echo "acceptance: $(SHARED)/acceptance not found, skipped"; fi
	@echo "== acceptance: ended at $(ELAPSED) s"

# export/k8svalidation is a module of its own (its go.mod carries
# k8s.io/kubernetes, which the product's must not): every Kubernetes export
# of the shipped examples and of the edge cases goes through the API
# server's own create path (defaults, conversion, the registry strategy's
# validation). go test fetches its modules (go.sum pins them).
k8svalidation:
	@echo "== k8svalidation: Kubernetes exports admitted by the API server's own validation (a module of its own)"
	@$(call progress,k8svalidation,cd export/k8svalidation && $(GO) vet ./... && $(GO) test $(VETFLAG) $(TESTLDFLAGS) -count=1 -timeout $(TESTTIMEOUT) ./...)
	@echo "== k8svalidation: ended at $(ELAPSED) s"

# The constraint engine says what the hand engine it replaced said, on
# 200,000 generated launches (schema's differential test; under -race,
# in unit, it checks only 5,000).
differential:
	@echo "== differential: schema's constraint engine against its oracle, 200,000 launches"
	@$(call progress,differential,$(GO) test $(VETFLAG) $(TESTLDFLAGS) -count=1 -timeout $(TESTTIMEOUT) -run '^TestValidateDifferential$$' ./schema)
	@echo "== differential: ended at $(ELAPSED) s"

# The library example (a real server through package launcher) must not
# flake: twenty times under the race detector, tests in parallel. GORACE:
# a race binary sleeps a second at exit by default, and each stop of a
# detached launch waits for its log relay's exit (the relay inherits it).
library: testbins
	@echo "== library: the library example, launchertest and group, 20 runs each under the race detector"
	@$(call progress,library,$(TESTENV) GORACE=atexit_sleep_ms=0 $(GO) test $(VETFLAG) $(TESTLDFLAGS) -race -count=20 -timeout $(TESTTIMEOUT) ./examples/library ./launcher/launchertest ./launcher/group)
	@echo "== library: ended at $(ELAPSED) s"

# make test: vet and fmtcheck first (a broken build fails in seconds), then
# two lanes at once, then fuzz-ci (its workers on every CPU for FUZZTIME).
# The test lane runs the tests that start processes and wait for them
# (unit, then library's 20 race runs), one stage after the other. The
# compile lane runs the stages that only compute (cross, k8svalidation,
# differential, acceptance, fuzz-build; at once) beside it under nice 19: the
# scheduler gives a nice-19 process about 1.5% of a CPU that a nice-0 one
# wants, so the compile lane takes the CPU the test lane leaves idle while
# its processes wait, and the tests with short ready timeouts get theirs
# as if the lane were not there. (At equal priority, make test-lanes, the
# compiling stages took the CPU those tests were waiting for: a clean-clone
# run at load 15-30 failed three testscripts that way.) The compile lane's
# output is kept in a file and printed whole when it ends, after the test
# lane's stage that was running; a failure in a lane stops that lane
# (the compile lane's stages already running finish), and make test fails
# when either lane failed.
TEST_LANE = unit library
COMPILE_LANE = cross k8svalidation differential acceptance fuzz-build
#
# After each stage make test prints "== STAGE: N CPU-seconds": the user and
# system time of the stage and everything it waited for (the shell's
# cutime and cstime from /proc), which, unlike its wall time, does not grow
# with other work on the machine.
cpusec = $$(awk -v hz=$$(getconf CLK_TCK) '{ sub(/^.*\) /, ""); printf "%d", ($$14 + $$15) / hz }' /proc/$$$$/stat)
# cpu-STAGE runs STAGE and then prints its CPU-seconds.
cpu-%:
	@prev=$(cpusec); $(MAKE) --no-print-directory START=$(START) $* && \
		echo "== $*: $$(($(cpusec) - prev)) CPU-seconds"
# $(call lane,STAGES) runs STAGES one after the other (each as cpu-STAGE),
# the first failure stopping it.
lane = for stage in $(1); do \
		$(MAKE) --no-print-directory START=$(START) cpu-$$stage || exit 1; \
	done
test: vet fmtcheck
	@out=$$(mktemp); trap 'rm -f $$out' EXIT; \
	echo "== compile lane: $(COMPILE_LANE), under nice 19 beside the test lane; its output comes when it ends"; \
	nice -n 19 $(MAKE) --no-print-directory START=$(START) compile-lane </dev/null >$$out 2>&1 & bg=$$!; \
	$(MAKE) --no-print-directory START=$(START) test-lane; fg=$$?; \
	wait $$bg; rc=$$?; echo "== compile lane: its output"; cat $$out; \
	[ $$fg = 0 ] && [ $$rc = 0 ] || { echo "== make test: FAILED (test lane exit $$fg, compile lane exit $$rc)"; exit 1; }
	@$(MAKE) --no-print-directory START=$(START) FUZZ_BUILT=1 cpu-fuzz-ci
test-lane:
	@$(call lane,$(TEST_LANE))
# The compile lane's stages run at once, all under nice 19: one stage is
# often a single thread (a link, differential's one test), and the test
# lane leaves both CPUs idle at times. make's --output-sync keeps each
# stage's output together, printed as the stage ends with its CPU-seconds.
compile-lane:
	@$(MAKE) --no-print-directory -j$(words $(COMPILE_LANE)) --output-sync=target START=$(START) $(addprefix cpu-,$(COMPILE_LANE))

# test-serial is make test one stage at a time (the order CI used before
# the lanes), for measuring a stage alone.
test-serial: vet fmtcheck
	@$(call lane,cross unit k8svalidation differential library acceptance fuzz-build)
	@$(MAKE) --no-print-directory START=$(START) FUZZ_BUILT=1 cpu-fuzz-ci

# Each fuzz target briefly (about 5 s each in CI; set FUZZTIME for longer runs with `make fuzz`).
FUZZ_TARGETS = $(shell grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)
fuzz-ci:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=5s
	@echo "== fuzz-ci: ended at $(ELAPSED) s"

# Each package's fuzz targets run from one test binary, built once with
# fuzzing's coverage instrumentation (go test -c -fuzz=.) into $(FUZZBIN):
# `go test -fuzz` per target relinked the package's instrumented binary for
# every target (31 targets, 14 packages). fuzz-build builds them (make test
# in its compile lane, before fuzz-ci); fuzz runs each target as go
# test would: in its package's directory, with go test's fuzz cache dir (the
# corpus it grows is the same), -test.paniconexit0, no timeout.
FUZZBIN := bin/fuzz
fuzzbin = $(FUZZBIN)/$$(echo $$d | sed 's|^\./||; s|/|_|g').test
fuzz-build:
	@echo "== fuzz-build: each fuzz package's test binary with fuzzing's instrumentation, into $(FUZZBIN)"
	@mkdir -p $(FUZZBIN); for d in $(FUZZ_TARGETS); do \
		t0=$$(date +%s); \
		$(GO) test -c -fuzz=. $(TESTLDFLAGS) -o $(fuzzbin) $$d || { echo "fuzz-build $$d: FAILED"; exit 1; }; \
		echo "fuzz-build $$d: built ($$(( $$(date +%s) - t0 )) s)"; \
	done
	@echo "== fuzz-build: ended at $(ELAPSED) s"

# The targets run FUZZLANES at a time, each with one fuzzing worker
# (-test.parallel 1) for its full FUZZTIME: on two CPUs that is the same
# CPU time per target as one target at a time with two workers, and each
# target's start (its seed corpus, the coordinator) overlaps another's
# fuzzing instead of leaving a CPU idle.
# A failing target fails the run, except for Go 1.26's fuzz-coordinator race
# at the -fuzztime boundary (go.dev/issue/75804, fixed in Go 1.27): a bare
# "context deadline exceeded" with no failing input written is tolerated and
# said in one line (its go test output, whose --- FAIL lines read as a broken
# build, is not shown). A real finding always writes its input under
# testdata/fuzz; its output is shown, its lane stops (the other lanes finish
# theirs) and the run fails. The last line counts fuzz targets:
# "fuzz: N passed, N failed". FUZZ_BUILT=1 runs the binaries fuzz-build made
# without building them again. A target's package path (its fuzz cache
# dir) is the module's path and its directory: one go list -m, where a go
# list per package took 4 s on fuzz-ci's critical path (14 packages, 2.5
# CPU-s, load 5).
FUZZLANES ?= 2
fuzz: $(if $(FUZZ_BUILT),,fuzz-build)
	@echo "== fuzz: each fuzz target for $(FUZZTIME), $(FUZZLANES) targets at a time with one worker each"; \
	tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; n=0; \
	fuzzcache=$$($(GO) env GOCACHE)/fuzz; mod=$$($(GO) list -m) || exit 1; \
	for d in $(FUZZ_TARGETS); do \
		pkg=$$mod$${d#.}; bin=$(CURDIR)/$(fuzzbin); \
		[ -x $$bin ] || { echo "fuzz $$d: no $$bin (make fuzz-build)"; exit 1; }; \
		for f in $$(grep -h '^func Fuzz' $$d/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
			echo "$$d $$pkg $$bin $$f" >>$$tmp/q$$((n % $(FUZZLANES))); n=$$((n+1)); \
		done; \
	done; \
	lanes=$$(ls $$tmp); \
	for q in $$lanes; do q=$$tmp/$$q; \
		( passed=0; tolerated=0; failed=0; log=$$q.log; \
		  while read -r d pkg bin f; do \
			if (cd $$d && $$bin -test.paniconexit0 -test.run '^$$' -test.fuzz "^$$f$$" -test.fuzztime $(FUZZTIME) -test.parallel 1 -test.fuzzcachedir $$fuzzcache/$$pkg) </dev/null >$$log 2>&1; then \
				echo "fuzz $$d $$f: ok"; passed=$$((passed+1)); \
			elif grep -q 'context deadline exceeded' $$log && ! grep -q 'Failing input written' $$log; then \
				echo "fuzz $$d $$f: ok (stopped by Go's fuzz-time boundary race, go.dev/issue/75804: no failing input)"; \
				passed=$$((passed+1)); tolerated=$$((tolerated+1)); \
			else \
				tail -n 30 $$log; echo "fuzz $$d $$f: FAILED"; failed=1; break; \
			fi; \
		  done <$$q; \
		  echo "$$passed $$tolerated $$failed" >$$q.count ) & \
	done; wait; \
	passed=0; tolerated=0; failed=0; \
	for q in $$lanes; do q=$$tmp/$$q; \
		if [ -f $$q.count ]; then read -r p t f <$$q.count; else p=0; t=0; f=1; fi; \
		passed=$$((passed+p)); tolerated=$$((tolerated+t)); failed=$$((failed+f)); \
	done; \
	[ $$tolerated = 0 ] || echo "fuzz: $$tolerated of these stopped at Go's fuzz-time boundary race with no failing input (tolerated)"; \
	echo "fuzz: $$passed passed, $$failed failed"; [ $$failed = 0 ]

demo: build
	@./examples/demo.sh ./$(BIN)

bench: build
	@command -v shellcheck >/dev/null || (apt-get update -qq && apt-get install -y -qq shellcheck) || true
	@command -v shfmt >/dev/null || (apt-get update -qq && apt-get install -y -qq shfmt) || true
	$(GO) run ./bench -bin $(BIN) -server bin/mock-llm

clean:
	rm -rf bin
