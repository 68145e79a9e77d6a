# Many launches: a model server and a router in front of it.
#
# `up` starts model first and verifies it (the key on the worker, the port
# owned by it, /healthz answering), and only then starts router, which
# depends on it. `down` stops them in the reverse order. In the foreground,
# `up` shows both outputs as "model  | …" / "router | …", stops both on
# Ctrl-C, and restarts router as its restart block says — each restart
# verified on the new worker like the first start.
#
#   childproof up examples/06-up-depends/childproof.hcl            # foreground; Ctrl-C stops both
#   childproof up --detach examples/06-up-depends/childproof.hcl   # returns once both are verified
#   childproof down examples/06-up-depends/childproof.hcl

variable "model_port" {
  default = 18086
}

variable "router_port" {
  default = 18087
}

launch "model" {
  command = ["../../bin/mock-llm", "--addr", "127.0.0.1:${var.model_port}"]
  env = {
    MOCK_LLM_KEY = env("MOCK_LLM_KEY", "demo-key")
  }
  require = ["MOCK_LLM_KEY"]
  worker {
    comm = "mock-llm"
  }
  port "http" {
    number = var.model_port
  }
  ready {
    http = "/healthz"
  }
}

# mock-llm stands in for a router here: it is started only once model is
# verified, and stopped before it.
launch "router" {
  command    = ["../../bin/mock-llm", "--addr", "127.0.0.1:${var.router_port}"]
  depends_on = ["model"]
  env = {
    MOCK_LLM_KEY = env("MOCK_LLM_KEY", "demo-key")
  }
  worker {
    comm = "mock-llm"
  }
  port "http" {
    number = var.router_port
  }
  ready {
    http = "/healthz"
  }
  restart {
    policy  = "on-failure"
    max     = 3
    backoff = "500ms"
  }
}
