#!/usr/bin/env bash
# The soak for longer: 64 ranks as threads and 16 JVM ranks (Netty's paranoid leak detection on) run every
# kind of collective and a two-phase collective write and read again and again for SECONDS each. Prints each
# run's line, "soak RANKS ITERATIONS HEAP_START_MIB HEAP_END_MIB" (rank 0's heap after a full GC), and fails on
# a wrong result, a leak report or a heap that grew.
# Usage: bench/run-soak.sh [SECONDS]   (default 60)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mvn -B -q -DskipTests install -pl it -am >/dev/null
mvn -B -q -o test -pl it -Dtest=SoakTest -Dpario.soak.seconds="${1:-60}" 2>&1 \
    | grep -oE "soak (threads|JVMs):.*|Tests run:.*Fail.*|LEAK.*" || true
