#!/usr/bin/env bash
# The dispatcher loads the project's defaults into the exported
# environment — and with them HF_HUB_ENABLE_HF_TRANSFER=1.
cd "$(dirname "$0")/.."
set -a
. ./.env
set +a
exec ../../bin/mock-llm --addr "127.0.0.1:18083"
