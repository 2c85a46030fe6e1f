#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The whole test suite, from a fresh clone: installs what it needs, checks formatting and
# lints, builds everything, and runs every test (Rust unit, property, conformance and
# end-to-end tests, which build and run the C partitions).
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }
if ! need cc || ! need c++ || ! need clang; then
    # GCC builds the partitions; clang is the second compiler the porting test builds
    # other implementations' style of partition code with (crates/apex/tests/porting.rs).
    echo "== installing C/C++ compilers (GCC, clang)"
    apt-get update -qq && apt-get install -y -qq build-essential clang >/dev/null
fi
if ! need cargo; then
    echo "cargo is required (https://rustup.rs)" >&2
    exit 1
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== cargo fmt --check"
cargo fmt --all -- --check
# The KVM guest runtime and test guests are a workspace of their own (crates/kvm-guest).
(cd crates/kvm-guest && cargo fmt -- --check)
echo "== cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
# The optional a653rs trait implementation of the partition runtime (docs/a653rs.md).
cargo clippy -p partita-apex --features a653rs --all-targets --quiet -- -D warnings
# The KVM guest runtime and test guests (their own workspace, freestanding; docs/kvm.md).
(cd crates/kvm-guest && cargo clippy --release --bins --quiet --target-dir ../../target/kvm-guest -- -D warnings)
echo "== licence headers (SPDX)"
./scripts/spdx.sh --check
echo "== dependency policy (deny.toml)"
mkdir -p target
./scripts/deps.sh 2>&1 | tee target/deps-output.txt
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
echo "== cargo build"
cargo build --workspace --all-targets --quiet
echo "== cargo test"
# End-to-end tests need root, cgroups and SCHED_FIFO; on CI a missing capability is a failure,
# not a skip.
export PARTITA_REQUIRE_ALL="${PARTITA_REQUIRE_ALL:-$([ "${CI:-}" = true ] && echo 1 || echo 0)}"
# The workspace build enables partita-apex's a653rs feature (crates/a653rs-examples asks for
# it), so this also runs crates/apex/tests/a653rs.rs and the a653rs examples' end-to-end tests.
cargo test --workspace --no-fail-fast 2>&1 | tee target/test-output.txt
status=${PIPESTATUS[0]}
skipped=$(cat target/deps-output.txt target/test-output.txt | grep -c '^SKIPPED ' || true)
if [ "$skipped" -gt 0 ]; then
    echo "== $skipped checks skipped for missing host capabilities:"
    cat target/deps-output.txt target/test-output.txt | grep '^SKIPPED '
fi
exit "$status"
