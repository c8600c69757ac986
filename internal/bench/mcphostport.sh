#!/bin/sh
# mcphostport.sh [OUT]: what moving the real mcphost onto strata costs its
# binary (issue 38, figure 1). It takes mcphost at the pinned release from
# the Go module proxy, builds it as it is, then builds it ported onto this
# checkout of strata, and prints both sizes and module counts, the modules
# the port adds, removes and moves, why it builds each it adds, and
# where the bytes went, by module (internal/bench/binsize). Builds are static, -trimpath, as released
# binaries are built; the same pair stripped (-s -w) follows. Run it from
# the module's root; OUT (default /tmp/mcphostport) keeps the sources and
# binaries. It takes about 4 minutes on 2 CPUs with a warm module cache.
#
# The port (testdata/mcphostport) replaces mcphost's internal/tools/mcp.go
# and fantasy_adapter.go and removes connection_pool.go: the servers of
# mcphost's config become a layer of strata's model (load.Typed), strata
# starts them, lists and names their tools (server__tool, ToolNames) and
# calls them (Workspace.Call), its builtin servers (mcp-go servers) are
# served in its process (InProcess), and its sampling handler answers its
# servers' sampling requests as before (Sampling); its config file, flags,
# LLM and UI are mcphost's own, unchanged. The port's go.mod is its own (go mod tidy
# of mcphost with strata required and replaced by this checkout). With
# MCPHOSTPORT_EVERYTHING set to server-everything's dist/index.js (npm ci
# --prefix fixtures/mcp), the port's test lists and calls its tools (its
# sampling tool answered by a fake model) and a builtin's through the
# ported code first.
set -eu
version=v0.34.0 # the newest release of mcphost, 25 February 2026
root=$(pwd)
out=${1:-/tmp/mcphostport}
port=$root/internal/bench/testdata/mcphostport
[ -f "$port/go.mod" ] || {
	echo "mcphostport.sh: run it from strata's root" >&2
	exit 1
}
rm -rf "$out/before" "$out/after"
mkdir -p "$out"
cd "$out"
dir=$(GOFLAGS=-mod=mod go mod download -json "github.com/mark3labs/mcphost@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
[ -n "$dir" ] || {
	echo "mcphostport.sh: go mod download found no github.com/mark3labs/mcphost@$version" >&2
	exit 1
}
cp -r "$dir" before
cp -r "$dir" after
chmod -R u+w before after
rm after/internal/tools/connection_pool.go
cp -r "$port/internal" after/
cp "$port/go.mod" "$port/go.sum" after/
(cd after && go mod edit -replace "github.com/strata-config/strata=$root")

build() { # dir, binary, ldflags
	(cd "$1" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags="$3" -o "$out/$2" .)
}
build before mcphost-before ""
build after mcphost-after ""
build before mcphost-before-stripped "-s -w"
build after mcphost-after-stripped "-s -w"
if [ -n "${MCPHOSTPORT_EVERYTHING:-}" ]; then
	(cd after && GOFLAGS=-mod=mod go test -count=1 -run TestStrataPort ./internal/tools/)
fi

mods() { go version -m "$1" | awk '$1 == "dep" { print $2, $3 }' | sort; }
mods mcphost-before >before.mods
mods mcphost-after >after.mods
echo "mcphost $version, go $(go env GOVERSION) $(go env GOOS)/$(go env GOARCH), CGO_ENABLED=0 go build -trimpath"
for b in mcphost-before mcphost-after mcphost-before-stripped mcphost-after-stripped; do
	printf '%-26s %11d bytes %4d modules\n' "$b" "$(wc -c <"$b")" "$(go version -m "$b" | grep -c '^[[:space:]]*dep')"
done
echo "modules the port adds (+), removes (-), or takes at another version (both):"
diff before.mods after.mods | sed -n 's/^> /+ /p; s/^< /- /p'
echo "why the port builds each module it adds (go mod why -m: the shortest chain of imports):"
(cd after && go mod why -vendor -m $(diff ../before.mods ../after.mods | awk '$1 == ">" { print $2 }' | while read -r m; do
	grep -q "^$m " ../before.mods || echo "$m"
done))
echo "where the bytes went (symbols by module: a module built but not linked has none; the sections hold the rest):"
cd "$root"
go run ./internal/bench/binsize -min 1000 "$out/mcphost-before" "$out/mcphost-after"
