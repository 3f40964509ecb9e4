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
# An input quoted in a workflow command's message: `%`, CR and LF escaped as the runner expects, so
# that a value holding a line break never starts a workflow command (`::warning::`) of its own.
escaped() {
  local v="${1//%/%25}"
  v="${v//$'\r'/%0D}"
  printf '%s' "${v//$'\n'/%0A}"
}
case "${INPUT_COMMAND:-assemble}" in
  lint) exec node "$here/risk-cli.mjs" lint --publication "${INPUT_PUBLICATION:-.}" ;;
  assemble) ;;
  *)
    echo "::error title=risk-cli::the command input is \"$(escaped "$INPUT_COMMAND")\"; give assemble or lint."
    exit 2
    ;;
esac
args=(assemble --publication "${INPUT_PUBLICATION:-.}" --site "${INPUT_SITE:-site}" --archive "${INPUT_ARCHIVE:-.risk-cli/archive.git}")
if [ "${INPUT_PUSH:-true}" = "true" ]; then
  args+=(--push --branch "${INPUT_BRANCH:-risk-archive}")
  if [ -n "${INPUT_REMOTE:-}" ]; then args+=(--remote "$INPUT_REMOTE"); fi
elif [ "${INPUT_PUSH}" != "false" ]; then
  echo "::error title=risk-cli::the push input is \"$(escaped "$INPUT_PUSH")\"; give true or false."
  exit 2
fi
if [ -n "${INPUT_NOW:-}" ]; then args+=(--now "$INPUT_NOW"); fi
exec node "$here/risk-cli.mjs" "${args[@]}"
