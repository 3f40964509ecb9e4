#!/usr/bin/env bash
# The action's one step: turns the INPUT_* variables action.yml sets into a `risk-cli assemble`
# command line and runs the committed bundle (action/risk-cli.mjs) with the runner's Node.
# Outputs, the step summary and annotations are written by risk-cli itself (GITHUB_ACTIONS=true).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -lt 20 ]; then
  echo "::error title=risk-cli::risk-cli needs Node 20 or later on the runner (found ${major}); add actions/setup-node before this step."
  exit 2
fi
case "${INPUT_COMMAND:-assemble}" in
  lint) exec node "$here/risk-cli.mjs" lint --publication "${INPUT_PUBLICATION:-.}" ;;
  assemble) ;;
  *)
    echo "::error title=risk-cli::the command input is \"${INPUT_COMMAND}\"; give assemble or lint."
    exit 2
    ;;
esac
args=(assemble --publication "${INPUT_PUBLICATION:-.}" --site "${INPUT_SITE:-site}" --archive "${INPUT_ARCHIVE:-.risk-cli/archive.git}")
if [ "${INPUT_PUSH:-true}" = "true" ]; then
  args+=(--push --branch "${INPUT_BRANCH:-risk-archive}")
  if [ -n "${INPUT_REMOTE:-}" ]; then args+=(--remote "$INPUT_REMOTE"); fi
elif [ "${INPUT_PUSH}" != "false" ]; then
  echo "::error title=risk-cli::the push input is \"${INPUT_PUSH}\"; give true or false."
  exit 2
fi
if [ -n "${INPUT_NOW:-}" ]; then args+=(--now "$INPUT_NOW"); fi
exec node "$here/risk-cli.mjs" "${args[@]}"
