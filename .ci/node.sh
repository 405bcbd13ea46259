#!/usr/bin/env bash
# CI of the Node.js package: its dependencies from the npm registry as the
# lock file pins them (@napi-rs/cli builds the addon in release mode, the
# `prepare` script), then its tests on node's own runner, which compare it
# with the release CLI over ../shared/fixtures, and tsc on its
# declarations. Needs node 20 or later with npm, and the Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tests check the package against the CLI's output.
cargo build --release -p llmstream-cli

cd crates/llmstream-node
rm -rf node_modules llmstream.node
npm ci --no-audit --no-fund
npm test
