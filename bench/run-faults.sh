#!/usr/bin/env bash
# The fault campaign for longer: every fault class of it/FaultCampaign (kills at random points of allreduces, a ring
# of 1 MiB messages, collective writes, reads and checkpoints; a rank that throws; a rank that never starts; a
# network cut between namespaces; a full file system; a rank without write permission) injected RUNS times into
# 4-JVM jobs. Prints one table row per class (runs, hangs, wrong-data outcomes, worst time to fail, other problems)
# and the errors the ranks reported in the last run. Network cuts, the full disk and the permission fault need root.
# Usage: bench/run-faults.sh [RUNS]   (default 20)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mvn -B -q -DskipTests install -pl it -am >/dev/null
mvn -B -q -o test -pl it -Dtest=FaultCampaignTest -Dpario.faults.runs="${1:-20}" 2>&1 \
    | grep -oE "faults:.*|Tests run:.*Fail.*" || true
