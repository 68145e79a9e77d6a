package verify

import (
	"strconv"

	"github.com/childproof/childproof/spec"
)

// CheckForPid returns the check of a running process given by its pid
// alone, as verify --pid makes it. pid is the root. The worker is the
// process below it whose comm is comm, else ("" matches any) the deepest
// descendant. The worker must own a listener on each of ports, on any
// address and each port once. It must have the environment x says, and be
// reached through none of spec.DefaultForbidWrappers. The check is named
// "pid PID". Port numbers are not range-checked here: a number outside
// 1-65535 is the caller's usage error.
func CheckForPid(pid int, x Expect, ports []int, comm string) Check {
	c := Check{
		Name:           "pid " + strconv.Itoa(pid),
		Root:           pid,
		WorkerSelector: WorkerSelector{Comm: comm, Deepest: true},
		Expect:         x,
		AnyAddress:     true,
		Forbid:         spec.DefaultForbidWrappers,
	}
	seen := map[int]bool{}
	for _, port := range ports {
		if !seen[port] {
			seen[port] = true
			c.Ports = append(c.Ports, spec.Port{Number: port})
		}
	}
	return c
}
