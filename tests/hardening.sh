#!/usr/bin/env bash
# hardening.sh STEP [SECONDS]: one native hardening check. Each step ends with
# the line "STEP: N passed, N failed" that tests/run-all.sh counts.
#   fuzz [S]     every libFuzzer target in build/fuzz/ for S seconds (default 2),
#                from its committed seeds (tests/fuzz/corpus/<target>/) plus what
#                earlier runs found (build/fuzz/corpus/<target>/): one test each
#   valgrind     the native C tests under memcheck, leaks included: one test
#   cppcheck     src/ and the C tests (suppressions: .cppcheck-suppressions): one test
#   clang-tidy   src/, tests/fuzz/ and tests/c/test_hardening.c (.clang-tidy): one test
# Build first: make fuzz-build build/native/test_posenc (make test does).
set -u
cd "$(dirname "$0")/.."
step=${1:?usage: tests/hardening.sh fuzz|valgrind|cppcheck|clang-tidy [seconds]}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy}

# The summary line; a single check counts as one test.
summary() { echo "$step: $1 passed, $2 failed"; [ "$2" = 0 ]; }
single() { if "$@"; then summary 1 0; else summary 0 1; fi; }

fuzz() {
  local seconds=${1:-2} passed=0 failed=0 total=0 src t log runs
  mkdir -p build/fuzz/findings
  for src in tests/fuzz/*.c; do
    t=$(basename "$src" .c)
    [ "$t" = decode ] && continue
    log=build/fuzz/$t.log
    mkdir -p "build/fuzz/corpus/$t"
    # -timeout: one input running 10 s is a hang; the first corpus directory
    # receives new inputs, the committed seeds stay as they are
    if [ ! -x "build/fuzz/$t" ]; then
      echo "fuzz $t: build/fuzz/$t is missing (make fuzz-build)"
      failed=$((failed + 1))
      continue
    fi
    local seeds=()
    [ -d "tests/fuzz/corpus/$t" ] && seeds=("tests/fuzz/corpus/$t")
    "build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=1024 \
      -print_final_stats=1 -artifact_prefix="build/fuzz/findings/$t-" \
      "build/fuzz/corpus/$t" "${seeds[@]}" > "$log" 2>&1
    local code=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
    runs=${runs:-0}
    total=$((total + runs))
    if [ "$code" = 0 ] && grep -q '^Done ' "$log"; then
      echo "fuzz $t: $runs executions, no finding"
      passed=$((passed + 1))
    else
      echo "fuzz $t: FINDING after $runs executions (exit $code); log $log:"
      grep -E 'ERROR|SUMMARY|invariant violated|runtime error|Test unit written' "$log" | head -8
      echo "  reproduce: build/fuzz/$t <artifact>  (FUZZ_TRACE=1 prints the decoded parameters)"
      failed=$((failed + 1))
    fi
  done
  echo "fuzz: $total executions in all"
  summary "$passed" "$failed"
}

valgrind_step() {
  valgrind -q --error-exitcode=1 --leak-check=full build/native/test_posenc > build/valgrind.log 2>&1
  local code=$?
  tail -3 build/valgrind.log
  [ "$code" = 0 ]
}

cppcheck_step() {
  cppcheck -q --std=c11 --enable=warning,style,performance,portability --inline-suppr \
    --suppressions-list=.cppcheck-suppressions --error-exitcode=1 \
    --template='{file}:{line}: {severity}: {message} [{id}]' \
    -Iinclude -Isrc -Isrc/encoder -Itests/c -Itests/fuzz src tests/c tests/fuzz tests/fmath
}

clang_tidy_step() {
  # A file whose text, headers and configuration are unchanged since a clean
  # run is not analysed again (build/clang-tidy/<hash>): the analyser takes
  # seconds per file.
  local stamps=build/clang-tidy context file todo=() code
  mkdir -p "$stamps"
  context=$(cat .clang-tidy include/*.h src/*.h src/encoder/*.h tests/c/check.h tests/fuzz/*.h | sha256sum)
  for file in src/*.c src/encoder/*.c tests/fuzz/*.c tests/c/test_hardening.c; do
    [ -e "$stamps/$( (echo "$context"; cat "$file") | sha256sum | cut -c1-32)" ] || todo+=("$file")
  done
  echo "clang-tidy: ${#todo[@]} changed files to analyse"
  [ "${#todo[@]}" = 0 ] && return 0
  # two at a time (the machine is shared); files before `--`, flags after
  printf '%s\n' "${todo[@]}" |
    xargs -P2 -n2 sh -c '"$0" --quiet "$@" -- -std=c11 -ffp-contract=off -Iinclude -Isrc -Isrc/encoder -Itests/c -Itests/fuzz' \
      "$CLANG_TIDY" 2>&1 | grep -v -E '^[0-9]+ warnings? generated|^Suppressed|^Use -header-filter|^$'
  code=${PIPESTATUS[1]}
  [ "$code" = 0 ] || return "$code"
  for file in "${todo[@]}"; do
    touch "$stamps/$( (echo "$context"; cat "$file") | sha256sum | cut -c1-32)"
  done
}

case $step in
fuzz) fuzz "${2:-2}" ;;
valgrind) single valgrind_step ;;
cppcheck) single cppcheck_step ;;
clang-tidy) single clang_tidy_step ;;
*) echo "hardening.sh: unknown step '$step'"; exit 2 ;;
esac
