#!/usr/bin/env bash
# Runs a go command without its "go: downloading <module>" lines: a cold module cache prints one per
# module (about 190 for the first `make simulate`), which buries the build steps' own messages. Every
# other line of its stderr, errors included, passes through, and the command's exit status is kept.
set -o pipefail
{ "$@" 2>&1 1>&3 3>&- | { grep -v '^go: downloading ' || true; } >&2; } 3>&1
