#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for Proxy Tuner: the system packages the tools and tests drive,
# then `npm ci` (which also builds dist/ through the `prepare` script). Needs root (apt-get).
# Used by the README's two commands and by .ci/run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-system-packages.sh
bash scripts/provision-matrix.sh
npm ci --no-audit --no-fund
