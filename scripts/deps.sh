#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The dependency policy (deny.toml), checked with cargo-deny: licences, duplicate versions and
# sources always; security advisories (RustSec) where the advisory database can be had.
# Installs cargo-deny when missing (`cargo install --locked cargo-deny`: about 3.5 minutes on
# a 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo deny --version >/dev/null 2>&1; then
    echo "== installing cargo-deny"
    cargo install --locked --quiet cargo-deny
fi

echo "== cargo deny: licences, duplicate versions, sources"
cargo deny --offline check licenses bans sources

echo "== cargo deny: advisories"
# The advisory database is a git repository on GitHub. Hosts without that access can use a
# copy fetched elsewhere: PARTITA_ADVISORY_DB names a directory holding cargo-deny's databases
# (what `cargo deny fetch db` writes to ~/.cargo/advisory-dbs on a connected machine).
if [ -n "${PARTITA_ADVISORY_DB:-}" ]; then
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    db_path=$(cd "$PARTITA_ADVISORY_DB" && pwd)
    db_line="db-path = \"$db_path\""
    sed "/^\[advisories\]/a $db_line" deny.toml >"$scratch/deny.toml"
    cargo deny --offline --config "$scratch/deny.toml" check advisories
elif fetch_log=$(cargo deny fetch db 2>&1); then
    cargo deny --offline check advisories
else
    reason=$(printf '%s\n' "$fetch_log" | grep -m1 -E '^fatal:' ||
        printf '%s\n' "$fetch_log" | grep -m1 -E 'ERROR|error' || printf '%s\n' "$fetch_log" | tail -1)
    echo "SKIPPED cargo deny advisories: the RustSec advisory database cannot be fetched (${reason}); set PARTITA_ADVISORY_DB to a copy of ~/.cargo/advisory-dbs from a host that can fetch it"
fi
