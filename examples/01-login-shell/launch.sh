#!/usr/bin/env bash
# What the harness did: the key is on the launch line, but a login,
# interactive shell runs /etc/profile, ~/.bash_profile and ~/.bashrc first.
cd "$(dirname "$0")"
exec bash -lic "exec ../../bin/mock-llm --addr 127.0.0.1:18081"
