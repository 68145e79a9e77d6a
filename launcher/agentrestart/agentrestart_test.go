package agentrestart

import (
	"strings"
	"testing"
)

func TestNoRestartAgent(t *testing.T) {
	for _, c := range []struct {
		argv string
		want bool
	}{
		{"torchrun --nproc_per_node=2 train.py", true},
		{"/usr/bin/torchrun --nnodes 2 --max_restarts 0 train.py", true},
		{"torchrun --max-restarts=3 train.py", false},
		{"torchrun --max_restarts 2 train.py --max_restarts 0", false},
		{"torchrun --nnodes=2 train.py --max_restarts 5", true}, // the script's own argument
		{"python3 -m torch.distributed.run --nnodes=2 --nproc_per_node=2 --node_rank=1 --master_addr=10.0.0.1 --master_port=29500 --redirects=1 --tee=1 train.py", true},
		{"python3 -m torch.distributed.run --standalone --max_restarts=1 train.py", false},
		{"python -m torch.distributed.launch --nproc_per_node 2 train.py", true},
		{"torchrun --max_restarts=x train.py", false},
		{"torchrun --max_restarts", false},
		{"python3 train.py", false},
		{"gunicorn --workers 3 app:app", false},
		{"node cluster.js", false},
		{"", false},
	} {
		if got := Never(strings.Fields(c.argv)); got != c.want {
			t.Errorf("Never(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
}
