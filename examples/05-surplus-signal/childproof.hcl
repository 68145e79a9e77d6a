# Story 5 — the surplus signal.
#
# A Go test harness stopped its in-process server by sending SIGTERM to its
# own process; a second, late signal shut down the next test's fresh server
# before it answered: "server exited before answering /health", under load.
#
# childproof signals the worker's process group through a pidfd, never
# itself; `stop` waits until the exit is observed; and a worker that exits
# before it is ready is reported with its exit status and last lines
# (exit 5), not as a time-out. A signal that reaches the tree while
# childproof watches its start is named with its sender — the answer the
# field report searched hours for: "SIGTERM from pid 4242 (app.test, uid 0)
# 12 ms after start — that is this process itself" (the Go library's error;
# JSON "signals", docs/launcher.md "Who signalled it").
#
#   childproof check examples/05-surplus-signal/childproof.hcl          # exit 0

variable "port" {
  default = 18085
}

# A server to start and stop again and again: mock-llm handles SIGTERM
# gracefully and exits 0.
launch "surplus-stop" {
  command = ["../../bin/mock-llm", "--addr", "127.0.0.1:${var.port}"]
  env = {
    MOCK_LLM_KEY = env("MOCK_LLM_KEY", "demo-key")
  }
  worker {
    comm = "mock-llm"
  }
  port "http" {
    number = var.port
  }
  ready {
    http    = "/healthz"
    timeout = "5s"
  }
}

# A worker that exits before it is ready: the key is empty, so mock-llm
# prints LLM_PROVIDER_NOT_CONFIGURED and exits 1. run says so, with the
# status and the last lines, at once.
launch "surplus-early-exit" {
  command = ["../../bin/mock-llm", "--addr", "127.0.0.1:${var.port}"]
  inherit = ["PATH"]
  env = {
    MOCK_LLM_KEY = ""
  }
  port "http" {
    number = var.port
  }
  ready {
    http    = "/healthz"
    timeout = "5s"
  }
}
