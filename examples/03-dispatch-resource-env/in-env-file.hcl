# Story 3, the report's own remedy: the dispatcher's `set -a; . ./.env`
# is deliberate (pods need .env) and must not be removed. A crash-fix
# round's --set of a name .env assigns is then written into .env too:
#
#   childproof run --detach examples/03-dispatch-resource-env/in-env-file.hcl
#   childproof relaunch resource-env-kept --set HF_HUB_ENABLE_HF_TRANSFER=0              # exit 1: .env clobbers it; the hint names --in-env-file
#   childproof relaunch resource-env-kept --set HF_HUB_ENABLE_HF_TRANSFER=0 --in-env-file # .env:3 edited in place, verified on the worker
#   childproof relaunch resource-env-kept --unset HF_HUB_ENABLE_HF_TRANSFER               # .env back byte for byte
#
# See docs/crash-fix-rounds.md, "A dispatcher that re-sources .env on purpose".

variable "port" {
  default = 18083
}

launch "resource-env-kept" {
  dispatch = ["scripts/dispatch.sh", "--arm", "2"]
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
