#!/usr/bin/env bash
# What the agent did.
cd "$(dirname "$0")"
nohup ../../bin/mock-llm --addr 0.0.0.0:18084 >/tmp/api.log 2>&1 &
echo $! > /tmp/api.pid
