#!/usr/bin/env bash
# Installs the workspace on a fresh machine: pnpm 12.4.2, then the locked dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(pnpm --version 2>/dev/null)" != "12.4.2" ]; then
  npm i -g pnpm@12.4.2 >/dev/null
fi
# pnpm does not read npm's nodedir; without it node-gyp tries to download Node headers (offline here).
nodedir="$(npm config get nodedir 2>/dev/null || true)"
if [ -n "$nodedir" ] && [ "$nodedir" != "undefined" ] && [ "$nodedir" != "null" ]; then
  export npm_config_nodedir="$nodedir"
fi
pnpm install --frozen-lockfile
