# Story 2 — the stale keyless server that answered the health check.
#
# A previous instance of the same server still held the port. The new,
# correctly keyed one failed to bind and exited; the harness polled /healthz,
# got 200 from the stale process and declared the server up.
#
# With this spec, `childproof run` first takes a census of the port: a holder
# childproof did not start is a hard failure (exit 4) and is left alone; a
# previous instance recorded by childproof is not replaced (on_stale = "fail").
# Readiness counts only once the socket's owner is the verified worker, so
# a stale process's 200 is never evidence.
#
#   childproof check examples/02-stale-listener/childproof.hcl               # exit 0

variable "port" {
  default = 18082
}

launch "stale-listener" {
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
    http    = "/healthz"
    timeout = "5s"
  }

  attempts = 1      # a foreign holder is not a race: never retry around it
  on_stale = "fail" # do not even replace our own previous instance
}
