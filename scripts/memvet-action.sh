#!/usr/bin/env bash
# The check step of memvet's GitHub Action (action.yml). Inputs arrive as
# environment variables (never interpolated into this script):
#   MEMVET_FILES           answer files or globs, space separated (default **/*.answers.jsonl)
#   MEMVET_CONTEXT         batch context for single-answer files (optional)
#   MEMVET_ARGS            extra `memvet check` flags, e.g. "--select I,T --ignore Q001"
#   MEMVET_SARIF           where to write the SARIF log for code scanning (default memvet.sarif)
#   MEMVET_FAIL_ON_REJECT  "true" (default): the step fails when an answer is rejected
# It prints GitHub annotations (errors and warnings at their line and column,
# fixes folded), writes one SARIF log, appends counts by code to the job
# summary and sets the outputs `sarif-file` and `exit-code`.
set -uo pipefail
shopt -s globstar nullglob

read -r -a patterns <<< "${MEMVET_FILES:-**/*.answers.jsonl}"
files=()
for pattern in "${patterns[@]}"; do
  for f in $pattern; do files+=("$f"); done
done
sarif="${MEMVET_SARIF:-memvet.sarif}"
out="${GITHUB_OUTPUT:-/dev/null}"
echo "sarif-file=$sarif" >> "$out"
if [ "${#files[@]}" -eq 0 ]; then
  echo "::warning title=memvet::no file matches '${MEMVET_FILES:-**/*.answers.jsonl}'"
  echo "exit-code=0" >> "$out"
  exit 0
fi
context=()
if [ -n "${MEMVET_CONTEXT:-}" ]; then context=(--context "$MEMVET_CONTEXT"); fi
read -r -a extra <<< "${MEMVET_ARGS:-}"
run() { memvet check "${files[@]}" "${context[@]}" "${extra[@]}" "$@"; }

run --format github
rc=$?
# The SARIF log is written whatever the verdict (upload it with if: always()).
run --format sarif --output-file "$sarif" --exit-zero --quiet
sarif_rc=$?
if [ "$sarif_rc" -gt "$rc" ]; then rc=$sarif_rc; fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "### memvet: ${#files[@]} file(s)"
    echo
    echo '```'
    run --statistics --exit-zero --quiet
    echo '```'
  } >> "$GITHUB_STEP_SUMMARY"
fi
echo "exit-code=$rc" >> "$out"
if [ "$rc" -eq 1 ] && [ "${MEMVET_FAIL_ON_REJECT:-true}" != "true" ]; then exit 0; fi
exit "$rc"
