#!/usr/bin/env bash
# System-level mutant kill table. Needs a build made with -DRNIC_MUTANTS=ON,
# where the MUTANT register switches one protection rule off at run time.
# Each mutant must make tests/driver/test_protection fail; one that passes
# is a hole in the tests, and this script fails.
# usage: run_mutants.sh BUILD_DIR
set -uo pipefail
build=${1:?usage: run_mutants.sh BUILD_DIR}
test_bin=$build/tests/driver/test_protection
names=(NONE NO_KEY_CHECK NO_PZ_CHECK NO_RIGHTS_CHECK NO_BOUNDS_CHECK NO_STATE_CHECK)

# The unmutated build must pass first, or every kill would be meaningless.
if ! RNIC_TEST_MUTANT=0 "$test_bin" >/dev/null 2>&1; then
  echo "run_mutants: test_protection fails with no mutant selected"
  exit 1
fi
killed=0 survived=0
printf '%-18s %s\n' mutant verdict
for m in 1 2 3 4 5; do
  if RNIC_TEST_MUTANT=$m timeout 300 "$test_bin" >/dev/null 2>&1; then
    printf '%-18s %s\n' "${names[$m]}" SURVIVED
    survived=$((survived + 1))
  else
    printf '%-18s %s\n' "${names[$m]}" killed
    killed=$((killed + 1))
  fi
done
echo "mutants: $killed passed, $survived failed"
[ "$survived" -eq 0 ]
