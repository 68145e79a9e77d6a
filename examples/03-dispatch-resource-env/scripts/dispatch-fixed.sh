#!/usr/bin/env bash
# The dispatcher after the fix: the environment arrives complete from
# childproof (env_file first, then the spec's overrides); nothing is
# re-sourced here.
cd "$(dirname "$0")/.."
exec ../../bin/mock-llm --addr "127.0.0.1:18083"
