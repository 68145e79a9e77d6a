package proctree

import (
	"fmt"
	"slices"
	"strings"

	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// Images describes the program image each picked worker runs
// (verify.Image), worker's first, then each of ranks not worker: readiness
// counts only when no worker exec'd between its verification and the end
// of the probe, so that a worker that binds and then re-execs itself (a
// graceful restart, a library-path shim) is judged on its last image, not
// the one that bound.
func Images(p proc.FS, worker int, ranks []int) string {
	return ImagesWith(p, worker, verify.Image(p, worker), ranks)
}

// ImagesWith is Images with the worker's image given (read with its
// fingerprint: verify.FingerprintImagePidfd).
func ImagesWith(p proc.FS, worker int, image string, ranks []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%s;", worker, image)
	seen := []int{worker}
	for _, pid := range ranks {
		if !slices.Contains(seen, pid) {
			seen = append(seen, pid)
			fmt.Fprintf(&b, "%d:%s;", pid, verify.Image(p, pid))
		}
	}
	return b.String()
}

// Reexeced returns the first worker whose image differs between two
// Images, or 0.
func Reexeced(before, after string) int {
	bs, as := strings.Split(before, ";"), strings.Split(after, ";")
	for i := range min(len(bs), len(as)) {
		if bs[i] != as[i] {
			var pid int
			fmt.Sscanf(bs[i], "%d:", &pid)
			return pid
		}
	}
	return 0
}
