#!/usr/bin/env bash
# Copies github.com/civo/civogo at the version external-dns requires into $1, which hack/external-dns/go.mod
# replaces the module with: external-dns links its Civo provider (never used by the AWS scenarios), and some
# module proxies do not serve civogo. Where yours does not, put a checkout of github.com/civo/civogo there.
set -euo pipefail
dest=$1
version=$(sed -n 's|^\tgithub.com/civo/civogo \(v[^ ]*\).*|\1|p' "$(dirname "$0")/go.mod")
# Outside the module, whose replace directive would otherwise name the destination itself.
if ! dir=$(cd "${TMPDIR:-/tmp}" && go mod download -json "github.com/civo/civogo@${version}" 2>/dev/null |
	sed -n 's/^\t"Dir": "\(.*\)",$/\1/p') || [ -z "$dir" ]; then
	echo "the module proxy does not serve github.com/civo/civogo@${version}; put a checkout of it at ${dest}" >&2
	exit 2
fi
mkdir -p "$dest"
cp -R "$dir"/. "$dest"
chmod -R u+w "$dest"
