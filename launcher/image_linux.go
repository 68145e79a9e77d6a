package launcher

import (
	"fmt"
	"slices"
	"strings"

	"github.com/childproof/childproof/verify"
)

// workerImages describes the program image each picked worker runs
// (verify.Image), the worker's first: readiness counts only when no worker
// exec'd between its verification and the end of the probe, so that a
// worker that binds and then re-execs itself (a graceful restart, a
// library-path shim) is judged on its last image, not the one that bound.
func (la *Launch) workerImages(worker int) string {
	pids := []int{worker}
	for _, rk := range la.ranks {
		if !slices.Contains(pids, rk.fp.Pid) {
			pids = append(pids, rk.fp.Pid)
		}
	}
	var b strings.Builder
	for _, pid := range pids {
		fmt.Fprintf(&b, "%d:%s;", pid, verify.Image(la.opts.Proc, pid))
	}
	return b.String()
}

// reexeced returns the first worker whose image differs between two
// workerImages, or 0.
func reexeced(before, after string) int {
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
