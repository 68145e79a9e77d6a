# Story 4 — the borrowed box full of ghosts.
#
# An agent ran `nohup server --host 0.0.0.0 --port … &` and wrote $! to
# /tmp/api.pid. Hours later the pid named another process, the log in /tmp
# was gone, a retry left two servers on two ports, and the API was published
# on every interface of a machine the agent did not own.
#
#   childproof check examples/04-borrowed-box/childproof.hcl:ghosts-broken           # warnings
#   childproof check --strict examples/04-borrowed-box/childproof.hcl:ghosts-broken  # exit 1
#   childproof check examples/04-borrowed-box/childproof.hcl:ghosts-fixed            # exit 0
#   childproof check examples/04-borrowed-box/bad-bind.hcl                           # exit 2

variable "port" {
  default = 18084
}

# The agent's way: check warns about the background launch, the pidfile and
# the all-interfaces bind. run would also fail verification: the spec's port
# is loopback, the worker binds 0.0.0.0.
launch "ghosts-broken" {
  dispatch = ["start-api.sh"]
  env = {
    MOCK_LLM_KEY = env("MOCK_LLM_KEY", "demo-key")
  }
  port "http" {
    number = var.port
  }
}

# The childproof way: a loopback bind, a fingerprinted worker recorded in the
# state dir (not a pid in /tmp), our own stale instance replaced, a stranger
# on the port left alone and reported.
launch "ghosts-fixed" {
  command = ["../../bin/mock-llm", "--addr", "127.0.0.1:${var.port}"]
  env = {
    MOCK_LLM_KEY = env("MOCK_LLM_KEY", "demo-key")
  }
  require = ["MOCK_LLM_KEY"]

  worker {
    comm = "mock-llm"
  }
  port "http" {
    number  = var.port
    address = "127.0.0.1"
  }
  ready {
    http = "/healthz"
  }
  attempts = 3
  on_stale = "replace"
}
