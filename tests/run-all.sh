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
