#!/usr/bin/env bash
# Runs the "A local server" steps of docs/postgres.md as they are written there (the fenced block between
# the local-steps markers), then connects with the url they give through `engram migrate`. So the steps a
# reader copies are the steps CI ran. Differences, all on purpose:
#   - the role and database are engram_docs_check (a developer's own `engram` is never touched), and the
#     password is typed by this script;
#   - `apt-get` lines are skipped when PostgreSQL is already installed (fast, and no network needed);
#   - the block runs without a controlling terminal (setsid), so createuser reads the password from stdin.
# Idempotent: what it makes is dropped first and at the end, and a server it had to start is stopped again.
# It only touches the system cluster (port 5432); the tests' own servers live in temp folders on other ports.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=engram_docs_check
PASSWORD="docs-check-$RANDOM$RANDOM"
DOC=docs/postgres.md

block=$(sed -n '/<!-- local-steps:start/,/<!-- local-steps:end -->/p' "$DOC" | sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')
[ -n "$block" ] || { echo "check-postgres-local-steps: no local-steps block in $DOC" >&2; exit 1; }
grep -q 'createuser --pwprompt engram' <<<"$block" || { echo "check-postgres-local-steps: the block no longer creates the engram role; update this script" >&2; exit 1; }

installed=no
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 && installed=yes
was_running=no
if [ "$installed" = yes ] && pg_lsclusters --no-header 2>/dev/null | grep -q ' online '; then was_running=yes; fi

script=$(printf '%s\n' "$block" \
  | if [ "$installed" = yes ]; then sed -E 's/^(as_root apt-get .*)$/# skipped, PostgreSQL is installed: \1/'; else cat; fi \
  | sed -E "/runuser/ s/\bengram\b/$NAME/g")

as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }
cleanup() {
  as_postgres dropdb --if-exists "$NAME" >/dev/null 2>&1 || true
  as_postgres dropuser --if-exists "$NAME" >/dev/null 2>&1 || true
  if [ "$was_running" = no ]; then
    if [ "$(id -u)" -eq 0 ]; then service postgresql stop >/dev/null 2>&1 || true; else sudo service postgresql stop >/dev/null 2>&1 || true; fi
  fi
}
# A run cut short before left its role and database: start from nothing.
if [ "$was_running" = yes ]; then cleanup; fi
trap cleanup EXIT

echo "check-postgres-local-steps: running the steps of $DOC as $(id -un)"
printf '%s\n%s\n' "$PASSWORD" "$PASSWORD" | setsid -w bash -euo pipefail -c "$script"

url="postgres://$NAME:$PASSWORD@127.0.0.1:5432/$NAME"
out=$(ENGRAM_FROM_SOURCE=1 node apps/cli/bin/engram.js migrate --db "$url")
echo "check-postgres-local-steps: $out"
grep -q '^Created the database postgres://' <<<"$out"
echo "check-postgres-local-steps: ok"
