# A spec that asks for an all-interfaces bind without saying it means it:
# check refuses it with exit 2 and points at the address.
launch "ghosts-bad-bind" {
  command = ["../../bin/mock-llm", "--addr", "0.0.0.0:18084"]
  env = {
    MOCK_LLM_KEY = env("MOCK_LLM_KEY", "demo-key")
  }
  port "http" {
    number  = 18084
    address = "0.0.0.0"
  }
}
