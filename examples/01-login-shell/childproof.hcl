# Story 1 — the login shell that ate the key.
#
# A test harness started its server as `MOCK_LLM_KEY=… bash -lic './server'`.
# -l runs /etc/profile and ~/.bash_profile, -i runs ~/.bashrc, and one of
# them blanked the key: the server refused to start although the key was
# right there on the launch line.
#
#   childproof check examples/01-login-shell/childproof.hcl:login-shell-broken   # exit 1
#   childproof check examples/01-login-shell/childproof.hcl:login-shell-fixed    # exit 0

variable "port" {
  default     = 18081
  description = "the port mock-llm listens on"
}

# The harness's way: launch.sh runs the server through `bash -lic`.
# check rejects it: login-shell and interactive-shell, before anything runs.
launch "login-shell-broken" {
  dispatch = ["launch.sh"]
  env = {
    MOCK_LLM_KEY = env("MOCK_LLM_KEY", "demo-key")
  }
  require = ["MOCK_LLM_KEY"]

  worker {
    comm = "mock-llm"
  }
  port "http" {
    number = var.port
  }
  ready {
    http = "/healthz"
  }
}

# The childproof way: exec the binary directly (no shell, no rc file), with
# the key part of the process's creation, and prove it on /proc/PID/environ
# of the process that owns the port.
launch "login-shell-fixed" {
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
    timeout = "10s"
  }
}
