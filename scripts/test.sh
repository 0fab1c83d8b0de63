#!/usr/bin/env bash
# Runs every test: builds kiln, then `ninja check-kiln` runs the lit tests
# (FileCheck) and the ctest tests (the runtime's GoogleTest binaries).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
"$root/scripts/build.sh" check-kiln
