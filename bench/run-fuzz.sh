#!/usr/bin/env bash
# The fuzz targets with many inputs (default 100000 each; the test suite runs 3000): type expressions, wire
# frames, checkpoint headers and view specs. Each input must work or raise Pario's own error (a decoder error
# for wire frames, which closes the connection). Prints one line per target.
# Usage: bench/run-fuzz.sh [INPUTS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
n=${1:-100000}
mvn -B -q -DskipTests install -pl cli -am >/dev/null
for target in "datatypes ParserFuzzTest" "comm FramesFuzzTest" "io CheckpointTest#mutated*" "cli ViewSpecFuzzTest"; do
    set -- $target
    # a failing target prints its escaped input and the run goes on to the next target
    mvn -B -q -o test -pl "$1" -Dtest="$2" -Dsurefire.failIfNoSpecifiedTests=false -Dpario.fuzz.inputs="$n" \
        2>&1 | grep -oE '(type expressions|wire frames|checkpoint headers|view specs):.*|escaped with.*' | sort -u \
        || true
done
