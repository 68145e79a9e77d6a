package verify

import (
	"strconv"

	"github.com/childproof/childproof/spec"
)

// CheckForPid returns the check of a running process given by its pid
// alone (verify --pid): pid is the root, the worker is the process below
// it whose comm is comm ("" any), else the deepest descendant; the worker
// must own a listener on each of ports (on any address, each port once),
// have the environment x says, and be reached through none of
// spec.DefaultForbidWrappers. The check is named "pid PID". Port numbers
// are not range-checked here (a number outside 1-65535 is the caller's
// usage error).
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
