#!/usr/bin/env bash
# run-all.sh: runs every suite (native C, sanitized C, Jest with the browser
# tests), carries on past a failing suite, and ends with the one line CI reads:
#   tests: N passed, N failed
set -u
cd "$(dirname "$0")/.."
results=build/test-results
mkdir -p "$results"
passed=0
failed=0

# A C test binary prints "c: N passed, N failed" last; a crash (a sanitizer
# report) leaves no such line and counts as one failure.
run_c() {
  local name=$1 binary=$2 code line
  echo "== $name"
  "$binary" > "$results/$name.txt" 2>&1
  code=$?
  cat "$results/$name.txt"
  line=$(grep -E '^c: [0-9]+ passed, [0-9]+ failed$' "$results/$name.txt" | tail -1)
  if [ -z "$line" ]; then
    echo "$name: exited with $code before its summary"
    failed=$((failed + 1))
    return
  fi
  set -- $line
  passed=$((passed + $2))
  failed=$((failed + $4))
  # a clean count but a failing exit (a leak report at exit) is still a failure
  if [ "$code" != 0 ] && [ "$4" = 0 ]; then failed=$((failed + 1)); fi
}

run_c c-native build/native/test_posenc
run_c c-sanitized build/asan/test_posenc
run_c c-fmath build/native/test_fmath

# Native hardening (tests/hardening.sh): each step prints "<step>: N passed,
# N failed" last (fuzz: one test per target, FUZZ_TEST_SECONDS each; the
# checkers: one test each); no such line counts as one failure.
run_step() {
  local step=$1 line
  shift
  echo "== $step"
  bash tests/hardening.sh "$step" "$@" > "$results/$step.txt" 2>&1
  cat "$results/$step.txt"
  line=$(grep -E "^$step: [0-9]+ passed, [0-9]+ failed$" "$results/$step.txt" | tail -1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  set -- $line
  passed=$((passed + $2))
  failed=$((failed + $4))
}

run_step fuzz "${FUZZ_TEST_SECONDS:-1}"
run_step valgrind
run_step cppcheck
run_step clang-tidy

echo "== jest"
rm -f "$results/jest.json"
NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile="$results/jest.json" "$@"
if [ -s "$results/jest.json" ]; then
  read -r jp jf < <(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const broken = r.testResults.filter((s) => s.status === "failed" && s.assertionResults.length === 0).length;
    console.log(r.numPassedTests, r.numFailedTests + broken);' "$results/jest.json")
  passed=$((passed + jp))
  failed=$((failed + jf))
else
  echo "jest: no results written"
  failed=$((failed + 1))
fi

echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
