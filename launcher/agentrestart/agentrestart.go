package agentrestart

import (
	"path/filepath"
	"strconv"
	"strings"
)

// agentFlagsNoValue are torchrun's options that take no value.
var agentFlagsNoValue = map[string]bool{
	"standalone": true, "m": true, "module": true, "no_python": true, "no-python": true,
	"run_path": true, "run-path": true,
}

// Never reports whether argv is a rank agent that never starts
// a replacement for a rank that exited: torchrun (python -m
// torch.distributed.run, or the older torch.distributed.launch) whose
// --max-restarts is 0, its default. Such an agent fails the whole group
// when one rank exits and then only waits in its exit barrier (up to
// 300 s) for the agents of the other nodes; foreground supervision does
// not wait for a respawn it will never make.
func Never(argv []string) bool {
	i := 0
	switch {
	case len(argv) > 0 && filepath.Base(argv[0]) == "torchrun":
		i = 1
	default:
		for j := 0; j+1 < len(argv); j++ {
			if argv[j] == "-m" && (argv[j+1] == "torch.distributed.run" || argv[j+1] == "torch.distributed.launch") {
				i = j + 2
				break
			}
		}
		if i == 0 {
			return false
		}
	}
	restarts := 0
	for ; i < len(argv); i++ {
		a := argv[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			break // the training script and its own arguments
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "max_restarts" || name == "max-restarts" {
			if !hasVal {
				if i+1 >= len(argv) {
					return false
				}
				i++
				val = argv[i]
			}
			n, err := strconv.Atoi(val)
			if err != nil {
				return false // not a number torchrun would take: do not guess
			}
			restarts = n
			continue
		}
		if !hasVal && !agentFlagsNoValue[name] {
			i++ // the option's value
		}
	}
	return restarts == 0
}
