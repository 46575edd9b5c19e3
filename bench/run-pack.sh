#!/usr/bin/env bash
# Runs the pack/unpack benchmarks and prints a table of GB/s and ratios to the arraycopy limit.
# Usage: bench/run-pack.sh [extra JMH options]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mvn -B -q -DskipTests -pl bench -am package
out="$root/bench/target/pack-results.json"
java -jar bench/target/benchmarks.jar PackBenchmark -f 1 -wi 3 -i 5 -w 2 -r 2 -rf json -rff "$out" "$@" > bench/target/pack-results.txt
java -cp bench/target/benchmarks.jar org.pario.bench.PackTable "$out"
