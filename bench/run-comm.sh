#!/usr/bin/env bash
# Collectives side by side: MPICH, Open MPI and Pario on the same operations and sizes, for 2 and 4 ranks on
# this machine, once with every stack over TCP and once on each stack's default path between processes of one
# host (shared memory). Installs MPICH and Open MPI (apt-get) when missing. Prints two tables per rank count
# with each stack's time and Pario's time divided by the best C stack's; over TCP also Pario's from direct
# ByteBuffers (`pario bench comm --direct`) beside its figures from double[] arrays.
# Usage: bench/run-comm.sh [RANKS...]   (default: 2 4)
# PARIO_BENCH_ROUNDS=R (default 1) runs every program R times, the stacks taking turns, and gives each cell the
# median of its R times: on a shared virtual machine one run's large-message cells can be twice another's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/target/comm"
mkdir -p "$out"
ranks=("${@:-2 4}")
[ $# -eq 0 ] && ranks=(2 4)
. "$root/bench/mpi-stacks.sh"
install_mpi_stacks
build_with_both "$root/bench/c/comm_bench.c" "$out/comm_bench"
(cd "$root" && mvn -B -q -DskipTests -pl cli -am package)
# A stack that polls with more ranks than cores can take minutes; each run is bounded and reported as cut.
limit=${PARIO_BENCH_LIMIT:-300}
rounds=${PARIO_BENCH_ROUNDS:-1}
median_of() { # output-file round-files...: each row's median time over the rounds, MiB/s from that median
    local target=$1; shift
    awk '
        FNR == 1 && NR == 1 { print }
        !/^(pingpong|barrier|bcast|allreduce|gather|alltoall) / { next }
        { key = $1 " " $2; if (!(key in n)) order[++count] = key; v[key, ++n[key]] = $4 }
        END {
            for (i = 1; i <= count; i++) {
                key = order[i]; m = n[key]
                for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++)
                    if (v[key, b] + 0 < v[key, a] + 0) { x = v[key, a]; v[key, a] = v[key, b]; v[key, b] = x }
                t = m % 2 ? v[key, (m + 1) / 2] : (v[key, m / 2] + v[key, m / 2 + 1]) / 2
                split(key, k, " ")
                if (k[2] >= 65536) printf "%-10s %10d B %12.1f us %10.1f\n", k[1], k[2], t, k[2] / t * 1e6 / 1048576
                else printf "%-10s %10d B %12.1f us \n", k[1], k[2], t
            }
        }' "$@" > "$target"
}
table() { # title mpich-file openmpi-file pario-file [pario-direct-file]
    echo
    echo "## $1 (times in us; MiB/s in parentheses; ratio columns: Pario / best C stack)"
    local direct=${5:-}
    awk -v withDirect="${direct:+1}" '
        { file = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : FILENAME == ARGV[3] ? 3 : 4 }
        !/^(pingpong|barrier|bcast|allreduce|gather|alltoall) / { next }
        { key = $1 " " $2; keys[key] = 1; order[++count] = key
          t[file, key] = $4; bw[file, key] = (NF >= 6 ? " (" $6 ")" : "") }
        function cell(f, key) { return t[f, key] == "" ? "cut" : t[f, key] bw[f, key] }
        function ratio(f, key, best) {
            return (best != "" && t[f, key] != "") ? sprintf("%.2f", t[f, key] / best) : "-"
        }
        END {
            printf "%-10s %10s %22s %22s %22s %8s", "operation", "bytes", "MPICH", "Open MPI", "Pario", "ratio"
            if (withDirect) printf " %22s %8s", "Pario, direct buffers", "ratio"
            printf "\n"
            for (i = 1; i <= count; i++) {
                key = order[i]; if (seen[key]++) continue
                split(key, k, " ")
                best = ""
                for (f = 1; f <= 2; f++) if (t[f, key] != "" && (best == "" || t[f, key] + 0 < best + 0)) best = t[f, key]
                printf "%-10s %10s %22s %22s %22s %8s", k[1], k[2], cell(1, key), cell(2, key), cell(3, key),
                    ratio(3, key, best)
                if (withDirect) printf " %22s %8s", cell(4, key), ratio(4, key, best)
                printf "\n"
            }
        }' "$2" "$3" "$4" ${direct:+"$direct"}
}
for n in "${ranks[@]}"; do
    for r in $(seq 1 "$rounds"); do
        # over TCP: every stack forced onto its TCP path, Pario's shared-memory path for large messages off
        timeout "$limit" mpiexec.mpich -n "$n" -env MPIR_CVAR_NOLOCAL 1 -env UCX_TLS tcp,self \
            "$out/comm_bench_mpich" "MPICH" > "$out/mpich-$n.$r.txt" 2>/dev/null || true
        timeout "$limit" mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --mca pml ob1 \
            --mca btl tcp,self "$out/comm_bench_openmpi" "Open MPI" > "$out/openmpi-$n.$r.txt" 2>/dev/null || true
        timeout "$limit" java -Dpario.sharedMemory=false -jar "$root/cli/target/pario.jar" bench comm -n "$n" \
            > "$out/pario-$n.$r.txt" 2>/dev/null || true
        # the same from direct ByteBuffers, which the kernel can read and write in place
        timeout "$limit" java -Dpario.sharedMemory=false -jar "$root/cli/target/pario.jar" bench comm -n "$n" \
            --direct > "$out/pario-direct-$n.$r.txt" 2>/dev/null || true
        # on one host: each stack's default path between processes of one host (shared memory)
        timeout "$limit" mpiexec.mpich -n "$n" "$out/comm_bench_mpich" "MPICH" > "$out/mpich-local-$n.$r.txt" \
            2>/dev/null || true
        timeout "$limit" mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" \
            "$out/comm_bench_openmpi" "Open MPI" > "$out/openmpi-local-$n.$r.txt" 2>/dev/null || true
        timeout "$limit" java -jar "$root/cli/target/pario.jar" bench comm -n "$n" > "$out/pario-local-$n.$r.txt" \
            2>/dev/null || true
    done
    for stack in mpich openmpi pario pario-direct mpich-local openmpi-local pario-local; do
        median_of "$out/$stack-$n.txt" $(for r in $(seq 1 "$rounds"); do echo "$out/$stack-$n.$r.txt"; done)
    done
    table "$n ranks over TCP$([ "$rounds" -gt 1 ] && echo ", medians of $rounds runs")" "$out/mpich-$n.txt" \
        "$out/openmpi-$n.txt" "$out/pario-$n.txt" "$out/pario-direct-$n.txt"
    table "$n ranks on one host, each stack's default path$([ "$rounds" -gt 1 ] && echo ", medians of $rounds runs")" \
        "$out/mpich-local-$n.txt" "$out/openmpi-local-$n.txt" "$out/pario-local-$n.txt"
done
