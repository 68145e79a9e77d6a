#!/usr/bin/env bash
# Crash-fix round 2: one mitigation, exported in the launcher.
export HF_HUB_ENABLE_HF_TRANSFER=0
cd "$(dirname "$0")"
exec bash scripts/dispatch.sh "$@"
