#!/usr/bin/env bash
# Builds restartsim at a git ref into bin/gate-base/<commit>/restartsim (once per commit) and prints
# the binary's path: the baseline side of `make gate`'s A/B comparison. The ref is built from a
# temporary git worktree, so the working tree and its uncommitted changes are left alone.
set -euo pipefail
ref=${1:?usage: hack/gate-base.sh <git ref>}
root=$(git rev-parse --show-toplevel)
if ! commit=$(git -C "$root" rev-parse --verify --quiet "${ref}^{commit}"); then
	echo "gate-base: '$ref' is not a commit of this repository (a shallow clone may lack it: git fetch --unshallow)" >&2
	exit 2
fi
out="$root/bin/gate-base/$commit/restartsim"
if [[ -x "$out" ]]; then
	echo "$out"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/restartsim-gate-base.XXXXXX")
cleanup() {
	git -C "$root" worktree remove --force "$work/src" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
echo "gate-base: building restartsim at ${commit:0:12} ($ref)" >&2
git -C "$root" worktree add --detach --quiet "$work/src" "$commit"
version=$(git -C "$work/src" describe --tags --always "$commit" 2>/dev/null || echo "$commit")
mkdir -p "$(dirname "$out")"
(cd "$work/src" && go build -ldflags "-X github.com/restartsim/restartsim/cmd/restartsim/app.version=$version" \
	-o "$out.tmp" ./cmd/restartsim) >&2
mv "$out.tmp" "$out"
echo "$out"
