#!/usr/bin/env bash
# System-level mutant kill table. Needs a build made with -DRNIC_MUTANTS=ON,
# where the MUTANT register switches one protection, window or fence rule off
# at run time (one verilated model serves every mutant). Each mutant must make
# at least one of the tests below fail; one that passes them all is a hole in
# the tests, and this script fails.
# usage: run_mutants.sh BUILD_DIR
set -uo pipefail
# Every test here counts exact cycles on one process's fabric: lockstep.
export RNIC_SIM_MODE=lockstep
build=${1:?usage: run_mutants.sh BUILD_DIR}
# The transport's rules (MUTANT 12-18) are held by the rtl_core bench's
# transport tests, which break one frame on the link at a time.
transport="timeout_retry cumulative_ack seq_nak_resume dup_send dup_read read_resume rnr_exhausted rnr_retry"
transport="$transport retry_exhausted periodic_ack read_superseded path_mtu_mismatch"
tests=("$build/tests/driver/test_protection" "$build/tests/driver/test_fence" "$build/tests/driver/test_bind"
       "$build/tests/scenario/scenarios all" "$build/tests/rtl_core/tb_rnic_core $transport")
names=(NONE NO_KEY_CHECK NO_PZ_CHECK NO_RIGHTS_CHECK NO_BOUNDS_CHECK NO_STATE_CHECK NO_FENCE NO_BIND_FENCE
       NO_BIND_KEY_CHANGE NO_LINK_CHECK NO_TYPE_CHECK NO_BIND_LMR_CHECK NO_RETRANSMIT NO_DUP_DETECT NO_CUM_ACK
       NO_RNR_RETRY NO_PERIODIC_ACK NO_READ_SUPERSEDE NO_PMTU_CHECK)

# With no mutant selected every test must pass, or every kill is meaningless.
for t in "${tests[@]}"; do
  # shellcheck disable=SC2086  # a test is a program and its arguments
  if ! RNIC_TEST_MUTANT=0 RTL_CORE_MUTANT=0 timeout 300 $t >/dev/null 2>&1; then
    echo "run_mutants: $(basename "${t%% *}") fails with no mutant selected"
    exit 1
  fi
done
killed=0 survived=0
printf '%-18s %-8s %s\n' mutant verdict "killed by"
for m in $(seq 1 $((${#names[@]} - 1))); do
  by=()
  for t in "${tests[@]}"; do
    # shellcheck disable=SC2086
    RNIC_TEST_MUTANT=$m RTL_CORE_MUTANT=$m timeout 300 $t >/dev/null 2>&1 || by+=("$(basename "${t%% *}")")
  done
  if [ ${#by[@]} -gt 0 ]; then
    printf '%-18s %-8s %s\n' "${names[$m]}" killed "${by[*]}"
    killed=$((killed + 1))
  else
    printf '%-18s %-8s\n' "${names[$m]}" SURVIVED
    survived=$((survived + 1))
  fi
done
echo "mutants: $killed passed, $survived failed"
[ "$survived" -eq 0 ]
