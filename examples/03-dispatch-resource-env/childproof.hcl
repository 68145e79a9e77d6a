# Story 3 — the dispatcher that re-sourced .env.
#
# A crash-fix round relaunched a job with one mitigation,
# HF_HUB_ENABLE_HF_TRANSFER=0, exported in launch.sh. The dispatcher does
# `set -a; . ./.env; set +a`, and .env says 1: the job ran with 1, while the
# dispatcher's own /proc/PID/environ (frozen at its exec) still said 0.
#
#   childproof check examples/03-dispatch-resource-env/childproof.hcl:resource-env-broken  # exit 1
#   childproof check examples/03-dispatch-resource-env/childproof.hcl:resource-env-fixed   # exit 0

variable "port" {
  default = 18083
}

# mock-llm reads MOCK_LLM_KEY only: MOCK_LLM_API_KEY looks right and does
# nothing, like HF_XET_DISABLE (built in) for HF_HUB_DISABLE_XET.
alias "MOCK_LLM_API_KEY" {
  use = "MOCK_LLM_KEY"
}

# The crash-fix round's way. check finds the re-source statically
# (env-file-clobber on HF_HUB_ENABLE_HF_TRANSFER) and warns that
# HF_XET_DISABLE is a no-op alias.
launch "resource-env-broken" {
  dispatch = ["launch.sh", "--arm", "2"]
  env = {
    HF_HUB_ENABLE_HF_TRANSFER = "0"
    HF_XET_DISABLE            = "1"
    MOCK_LLM_KEY              = env("MOCK_LLM_KEY", "demo-key")
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

# The childproof way: childproof loads .env itself, first; the overrides win
# over it; the dispatcher does not re-source anything; the check happens on
# the worker (the deepest descendant), not on the dispatcher.
launch "resource-env-fixed" {
  dispatch = ["scripts/dispatch-fixed.sh", "--arm", "2"]
  env_file = ".env"
  env = {
    HF_HUB_ENABLE_HF_TRANSFER = "0"
    HF_HUB_DISABLE_XET        = "1"
    MOCK_LLM_KEY              = env("MOCK_LLM_KEY", "demo-key")
  }
  require = ["MOCK_LLM_KEY", "MODEL_NAME"]

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
