package design

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/childproof/childproof/"

// layers is docs/design.md's table: each package of the module and the
// module packages it may import. A package missing here fails the test, so
// that a new package is placed in the design when it is made.
var layers = map[string][]string{
	// Leaves: they import no package of the module.
	"outcome": nil, "redact": nil, "proc": {"internal/pidfd", "internal/bufpool"},
	"internal/atomicfile": nil, "internal/dotenv": nil, "internal/hcltext": nil,
	"internal/inputfile": nil, "internal/logtail": nil, "internal/fdwait": nil,
	"internal/sockdiag": nil, "internal/wrapper": nil, "internal/freeport": nil,
	"internal/proccn": nil, "internal/noinherit": nil, "internal/wakeup": nil,
	"internal/bufpool":     nil,
	"internal/testsupport": {"internal/freeport"},
	// Waits in the runtime's network poller: pidfds are waited on with them.
	"internal/pidfd": {"internal/fdwait"},
	// SARIF and rdjson output against their JSON schemas, for tests.
	"internal/testsupport/schemacheck": nil,
	"internal/design":                  nil,

	// The rules of the spec language's fields, shared by the loader and spec.
	"internal/specrule": {"internal/wrapper", "redact"},
	// The spec's model: a launch as Go structs, checked by hand; no HCL.
	"spec": {"internal/specrule", "internal/dotenv", "internal/inputfile", "internal/wrapper", "redact"},
	// The spec language: HCL in, validated Go structs out; it knows no process.
	"schema": {"spec", "internal/specrule", "internal/dotenv", "internal/inputfile", "internal/wrapper", "redact"},
	// The shell's environment, statically: knows no process.
	"envres/internal/nesting": nil,
	"envres/script":           {"envres/internal/nesting", "internal/inputfile", "internal/wrapper"},
	"envres/facts":            {"envres/script"},
	"envres/internal/progs":   {"internal/dotenv", "internal/wrapper"},
	"envres/internal/shape":   nil,
	"envres/internal/fscache": {"internal/inputfile"},
	"envres/internal/expand":  {"envres/internal/shape"},
	"envres/construct":        {"envres/script", "envres/internal/shape"},
	"envres/plan":             {"envres/construct", "envres/script"},
	"envres/internal/resolve": {"envres/facts", "envres/internal/expand", "envres/internal/shape", "envres/plan", "envres/script"},
	"envres/interp":           {"envres/construct", "envres/plan", "envres/internal/resolve", "envres/internal/expand", "envres/facts", "envres/internal/progs", "envres/internal/shape", "envres/internal/fscache", "envres/script", "schema", "internal/dotenv", "internal/inputfile", "internal/wrapper", "redact"},
	"envres":                  {"envres/facts", "envres/interp", "envres/script", "envres/internal/nesting", "schema", "internal/dotenv", "internal/inputfile", "internal/wrapper", "outcome", "redact"},
	// Readers of what the kernel says, below verify and launcher.
	"internal/probe":    {"internal/sockdiag", "spec"},
	"internal/logrelay": {"redact"},
	// The proof: one look at a running tree.
	"verify": {"proc", "spec", "internal/pidfd", "internal/probe", "internal/sockdiag", "internal/wrapper", "outcome", "redact"},
	// The launcher packages' one error type.
	"launcher/failure": {"outcome", "spec", "verify"},
	// The state dir's storage: files, key, locks, logs, records, masks.
	"launcher/statedir": {"launcher/failure", "verify", "proc", "spec", "outcome", "redact", "internal/atomicfile", "internal/bufpool"},
	// The tree model: which process is the worker, who holds the ports.
	"launcher/proctree": {"verify", "proc", "spec", "launcher/statedir", "internal/sockdiag", "internal/fdwait"},
	// The exec-time capture: ptrace of a launched tree.
	"launcher/exectrace": {"verify", "proc"},
	// The tree as something to signal: pidfds, its group, cgroup, marker.
	// The tree's fork, exec and exit events (the proc connector).
	"launcher/treeevents": {"internal/proccn", "internal/wakeup"},
	"launcher/sigtree":    {"verify", "proc", "launcher/proctree", "internal/pidfd"},
	// The find loop's looks at a tree, cheap while nothing changes.
	"launcher/treelook": {"proc", "spec", "verify", "launcher/proctree", "launcher/treeevents", "internal/proccn", "internal/sockdiag"},
	// Which members of the tree are new since the launch was verified.
	"launcher/memberwatch": {"proc", "verify", "launcher/treeevents"},
	// Waiting for a worker's readiness: probes paced by the tree's events.
	"launcher/readiness": {"proc", "spec", "redact", "launcher/treeevents", "launcher/output", "internal/pidfd", "internal/fdwait", "internal/probe", "internal/sockdiag"},
	// Which secrets a launch's outputs are masked with.
	"launcher/mask": {"launcher/failure", "launcher/statedir", "spec", "verify", "redact"},
	// A recorded launch's log read back, masked.
	"launcher/logread": {"launcher/failure", "launcher/mask", "launcher/statedir", "verify", "proc", "spec", "outcome", "internal/logtail"},
	// What the tree printed, as lines: Output's follower, Lines.
	"launcher/output": {"internal/logtail"},
	// The tree's output pipe, its reader and the log relay's launcher side.
	"launcher/relay": {"launcher/failure", "launcher/statedir", "launcher/output", "verify", "proc", "outcome", "redact", "internal/logrelay", "internal/noinherit", "internal/pidfd"},
	// The launched tree's environment: inherit, env file, overrides, require.
	"launcher/launchenv": {"launcher/failure", "launcher/mask", "spec", "verify", "outcome", "redact"},
	// Running a launch as its spec's user and group.
	"launcher/runas": {"launcher/failure", "launcher/launchenv", "proc", "spec", "verify", "outcome"},
	// A Go launch's {{port}} placeholders filled from its Ports.
	"launcher/portplaceholder": {"launcher/failure", "spec", "outcome"},
	// Whether a rank agent ever replaces a rank that exited.
	"launcher/agentrestart": nil,
	// The process that ends a foreground tree whose starter is gone.
	"launcher/watchdog": {"internal/noinherit", "internal/pidfd"},
	// ps, stop and down's stopping: the census and fingerprinted stops.
	"launcher/census": {"launcher/failure", "launcher/statedir", "launcher/proctree", "launcher/sigtree", "launcher/relay", "verify", "proc", "outcome",
		"internal/sockdiag", "internal/pidfd"},
	// What a launch writes of itself: its record and its round.
	"launcher/journal": {"launcher/failure", "launcher/statedir", "launcher/proctree", "launcher/mask", "verify", "proc", "spec", "outcome", "redact"},
	// A recorded launch inspected: its check, re-selection, verify, explain, history.
	"launcher/recorded": {"launcher/failure", "launcher/statedir", "launcher/proctree", "launcher/census", "launcher/mask", "launcher/runas", "verify", "proc", "spec", "outcome", "redact"},
	// Starting, finding, recording, stopping.
	"launcher": {"verify", "proc", "spec", "launcher/failure", "launcher/statedir", "launcher/proctree", "launcher/exectrace", "launcher/sigtree", "launcher/census", "launcher/recorded", "launcher/journal", "launcher/treeevents", "launcher/readiness", "launcher/memberwatch", "launcher/treelook", "internal/wakeup", "launcher/mask", "launcher/logread", "launcher/output", "launcher/relay", "launcher/watchdog", "launcher/launchenv", "launcher/runas", "launcher/portplaceholder", "launcher/agentrestart", "outcome", "redact", "internal/atomicfile",
		"internal/dotenv", "internal/logtail", "internal/noinherit", "internal/pidfd", "internal/fdwait", "internal/probe", "internal/sockdiag",
		"internal/proccn"},
	"launcher/group": {"launcher", "verify", "proc", "spec", "outcome"},
	// Crash-fix relaunch, above launcher: the command and present import it.
	"launcher/relaunch": {"launcher", "verify", "spec", "outcome", "internal/atomicfile", "internal/dotenv"},
	// What the commands print of launcher's and relaunch's results.
	"launcher/present":               {"launcher", "launcher/relaunch", "verify", "proc", "spec", "outcome"},
	"launcher/launchertest":          {"launcher", "launcher/group", "launcher/statedir", "verify", "proc", "spec", "internal/testsupport", "internal/freeport"},
	"launcher/launchertest/specfile": {"launcher", "launcher/launchertest", "schema"},
	// What runs nothing: rendering and reviewing, portable to macOS and Windows.
	"export":     {"schema", "internal/dotenv", "internal/hcltext", "internal/inputfile"},
	"importspec": {"schema", "envres", "internal/atomicfile", "internal/hcltext"},
	"lintreport": {"schema", "envres", "internal/inputfile"},
	// The command line: the only package that may import everything.
	"cmd/childproof":                  {"*"},
	"cmd/childproof/internal/console": {"launcher"},
	"cmd/childproof/internal/gitdiff": {"envres"},
	// The testscripts' server and port helper: the test binary and the
	// scripts' build of childproof (-tags childprooftest) run it.
	"cmd/childproof/internal/scripthelper": {"internal/freeport"},
	// Tests and examples of the whole: they use the binary or the library.
	"export/enginetest": {"*"}, "export/k8svalidation": {"*"}, "realservers": {"*"}, "bench": {"*"}, "bench/floor": nil, "bench/hello": nil, "bench/readyserver": nil,
	"examples/library": {"*"}, "examples/mock-llm": {"*"}, "examples/ci": {"*"},
}

// TestImportRules reads every package's imports (non-test files, on
// Linux, macOS and Windows) and fails on one the table does not allow.
func TestImportRules(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin") {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	seen := 0
	for _, goos := range []string{"linux", "darwin", "windows"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = goos, "amd64"
		for _, dir := range dirs {
			p, err := ctx.ImportDir(dir, 0)
			if err != nil {
				continue // no Go files here (for goos)
			}
			rel, _ := filepath.Rel(root, dir)
			rel = filepath.ToSlash(rel)
			allowed, ok := layers[rel]
			if !ok {
				t.Errorf("package %s is not in docs/design.md's layers: place it there and in this test", rel)
				continue
			}
			seen++
			if slices.Contains(allowed, "*") {
				continue
			}
			for _, im := range p.Imports {
				dep, ok := strings.CutPrefix(im, module)
				if !ok {
					continue
				}
				if !slices.Contains(allowed, dep) {
					t.Errorf("%s imports %s on %s: docs/design.md allows it %v", rel, dep, goos, allowed)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no package read: the test looks in the wrong place")
	}
	// Nothing imports cmd: the command line is the top.
	for pkg, allowed := range layers {
		for _, a := range allowed {
			if strings.HasPrefix(a, "cmd/") && !strings.HasPrefix(pkg, "cmd/") {
				t.Errorf("%s may import %s: nothing outside cmd may", pkg, a)
			}
		}
	}
}
