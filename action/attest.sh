#!/usr/bin/env bash
# The action's attestation step: keeps the Sigstore bundle that actions/attest-build-provenance
# made for the new frame in the archive (`risk-cli archive attest`, which checks that its subject
# is the frame's hash), then pushes the archive, which sends the attestations branch too.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
archive="${INPUT_ARCHIVE:-.risk-cli/archive.git}"
node "$here/risk-cli.mjs" archive attest --frame "$FRAME_ID" --bundle "$BUNDLE" --archive "$archive"
if [ "${INPUT_PUSH:-true}" = "true" ]; then
  args=(archive push --archive "$archive" --branch "${INPUT_BRANCH:-risk-archive}")
  if [ -n "${INPUT_REMOTE:-}" ]; then args+=(--remote "$INPUT_REMOTE"); fi
  node "$here/risk-cli.mjs" "${args[@]}"
fi
