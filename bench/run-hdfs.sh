#!/usr/bin/env bash
# Collective I/O on HDFS: pario bench io with 4 JVM ranks against a 3-datanode MiniDFSCluster on this machine
# (128 MiB blocks, replication 3): BLOCK 2x2x1 with 1, 2 and 4 aggregators and CYCLIC(1), beside one client writing
# and reading the same bytes through a single FSDataOutputStream / FSDataInputStream. The cluster, the 4 ranks and
# the client share the machine's cores and disk, so the figures show behaviour, not what a real cluster does.
# Usage: bench/run-hdfs.sh [EDGE]   (default 256: a 128 MiB array; 512 is 1 GiB)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mvn -B -q -DskipTests install -pl it -am >/dev/null
mvn -B -q dependency:build-classpath -pl it -Dmdep.includeScope=test -Dmdep.outputFile="$root/it/target/bench-cp.txt" >/dev/null
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT
java -Xmx2g -cp "it/target/test-classes:$(cat it/target/bench-cp.txt)" org.pario.it.HdfsBenchMain "${1:-256}" "$data" \
    2>/dev/null | grep -E '^(#|write|read)'
