#!/usr/bin/env bash
# Collective I/O side by side: a distributed N^3 array of doubles written (synced) and read collectively by
# MPICH's ROMIO, Open MPI's OMPIO, Open MPI's ROMIO and Pario, for darray BLOCK on two grids and CYCLIC(1), with
# 4 and 2 ranks, on the same disk in the same run, beside a plain sequential write of the same bytes (the limit).
# Each program (C and Java alike) first writes and reads an eighth of its data through the same view to a scratch
# file, untimed, so that the timed phases measure a warm process, as a job's later checkpoints are: compiled code
# for Pario, allocated buffers for all (PARIO_BENCH_WARMUP=0 measures the first, cold access instead).
# Pario runs twice on the Java found first on the PATH (17, the baseline): with default hints (large reads and writes
# bypass the page cache: direct_read=automatic, direct_write=automatic), and as "Pario-buffered" with
# direct_read=false and direct_write=false, everything through the page cache as in the C stacks; and once more
# with default hints on the newest JDK 22+ of the machine (bin/find-jdk), as "Pario-javaN", where the jar's
# classes for Java 22+ run (built by that JDK).
# Installs MPICH and Open MPI (apt-get) when missing. Prints one table per rank count: MiB/s per stack, Pario's
# ratio to the best C stack, and peak resident memory (largest rank / all ranks, MiB). Writes and reads of this
# size on a virtual disk vary a lot from run to run, so the BLOCK patterns and the sequential limit run REPS
# times (default 3) each, interleaved, and the table shows medians; CYCLIC(1), which takes minutes in the C
# stacks, runs once.
# Every run starts PARIO_BENCH_SETTLE seconds (default 6) after the previous run's file was deleted: this machine's
# hypervisor takes back guest memory the guest has freed (free page reporting) within a few seconds, and touching
# it again costs a host fault per page, so a program that starts right after a delete fills the page cache from
# still-mapped memory and writes up to 3x faster than one that starts later (measured: docs/benchmarks.md). For the
# same reason every program waits PARIO_BENCH_READ_SETTLE seconds (default: the same) between dropping the page
# cache and its timed read.
# Usage: bench/run-io.sh [EDGE] [DIR]   (default: 512 = 1 GiB, in bench/target/io); PARIO_BENCH_REPS=N;
#        PARIO_BENCH_PATTERNS="2x2x1 cyclic" runs only those patterns (of 2x2x1 1x2x2 cyclic at 4 ranks, 1x2x1
#        1x1x2 cyclic at 2); PARIO_BENCH_RANKS="4" only that rank count
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/target/io"
mkdir -p "$out"
edge=${1:-512}
dir=${2:-$out}
. "$root/bench/mpi-stacks.sh"
install_mpi_stacks
build_with_both "$root/bench/c/io_bench.c" "$out/io"
find_newer_jdk
newer_label=${newer:+Pario-java$newer_version}
(cd "$root" && JAVA_HOME="${newer:-${JAVA_HOME:-}}" mvn -B -q -DskipTests -pl cli -am package)
limit=${PARIO_BENCH_LIMIT:-300}
file="$dir/run-io.bin"
results="$out/results.txt"
: > "$results"
jobs=0
settle=${PARIO_BENCH_SETTLE:-6}
# every program waits as long between dropping the page cache and its timed read, so each read starts in the same
# cold memory whether the program's writes went through the page cache or not
export PARIO_BENCH_READ_SETTLE=${PARIO_BENCH_READ_SETTLE:-$settle}
# every program first writes and reads an eighth of its data to a scratch file, untimed (PARIO_BENCH_WARMUP), and
# waits as long after deleting it
export PARIO_BENCH_SETTLE=$settle
wanted() { # pattern
    [ -z "${PARIO_BENCH_PATTERNS:-}" ] || [[ " $PARIO_BENCH_PATTERNS " == *" $1 "* ]]
}
reps=${PARIO_BENCH_REPS:-3}
export PARIO_BENCH_WARMUP=${PARIO_BENCH_WARMUP:-0.125}
warmup=$PARIO_BENCH_WARMUP
for n in ${PARIO_BENCH_RANKS:-4 2}; do
    if [ "$n" -eq 4 ]; then patterns="2x2x1 1x2x2"; else patterns="1x2x1 1x1x2"; fi
    all=""
    for ((i = 0; i < reps; i++)); do
        for p in $patterns; do
            if wanted "$p"; then all="$all $p"; fi
        done
    done
    if wanted cyclic; then all="$all cyclic"; fi
    for p in $all; do
        if [ "$p" != cyclic ]; then
            run_io_job Sequential mpiexec.mpich -n 1 "$out/io_mpich" sequential "$edge" "$file"
            run_io_job Sequential-direct mpiexec.mpich -n 1 "$out/io_mpich" sequential-direct "$edge" "$file"
        fi
        run_io_job MPICH-ROMIO mpiexec.mpich -n "$n" "$out/io_mpich" "$p" "$edge" "$file"
        run_io_job OpenMPI-OMPIO mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --mca io ompio \
            "$out/io_openmpi" "$p" "$edge" "$file"
        run_io_job OpenMPI-ROMIO mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --mca io romio321 \
            "$out/io_openmpi" "$p" "$edge" "$file"
        run_io_job Pario java -jar "$root/cli/target/pario.jar" bench io -n "$n" --size "$edge" --pattern "$p" \
            --file "$file" --warmup "$warmup"
        run_io_job Pario-buffered java -jar "$root/cli/target/pario.jar" bench io -n "$n" --size "$edge" \
            --pattern "$p" --file "$file" --warmup "$warmup" --hint direct_write=false --hint direct_read=false
        if [ -n "$newer" ]; then
            run_io_job "$newer_label" "$newer/bin/java" --enable-native-access=ALL-UNNAMED \
                -jar "$root/cli/target/pario.jar" bench io -n "$n" --size "$edge" --pattern "$p" --file "$file" \
                --warmup "$warmup"
        fi
    done
done
awk -v newer="$newer_label" '
    function median(list,    v, n, i, j, t) {
        n = split(list, v, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n % 2 ? v[(n + 1) / 2] : sprintf("%.1f", (v[n / 2] + v[n / 2 + 1]) / 2)
    }
    $1 == "Sequential" { seqs = seqs " " $5; next }
    $1 == "Sequential-direct" { dseqs = dseqs " " $5; next }
    { key = $2 " " $3 " " $4; if (!(key in seen)) { seen[key] = 1; order[++count] = key }
      runs[$1, key] = runs[$1, key] " " $5; mem[$1, key] = $7 "/" $8 }
    END {
        for (rk in runs) mibs[rk] = median(runs[rk])
        seq = median(seqs)
        printf "sequential write+fsync of the same bytes: median %s MiB/s of%s\n", seq, seqs
        if (dseqs != "") printf "the same with O_DIRECT (no page cache): median %s MiB/s of%s\n", median(dseqs), dseqs
        nstacks = split("MPICH-ROMIO OpenMPI-OMPIO OpenMPI-ROMIO Pario Pario-buffered" (newer != "" ? " " newer : ""),
            stacks, " ")
        printf "%-6s %-7s %5s", "phase", "pattern", "ranks"
        for (s = 1; s <= nstacks; s++) printf " %14s", stacks[s]
        printf " %12s %10s %12s %10s", "Pario/best", "Pario/seq", "buffer/best", "buffer/seq"
        if (newer != "") printf " %12s %10s", "newer/best", "newer/seq"
        printf "  peak RSS MiB (max/sum): ROMIO, OMPIO, O-ROMIO, Pario, Pario-buffered%s\n", (newer != "" ? ", " newer : "")
        for (i = 1; i <= count; i++) {
            key = order[i]; split(key, k, " ")
            best = 0
            for (s = 1; s <= 3; s++) if ((stacks[s], key) in mibs && mibs[stacks[s], key] + 0 > best) best = mibs[stacks[s], key] + 0
            printf "%-6s %-7s %5s", k[1], k[2], k[3]
            for (s = 1; s <= nstacks; s++) printf " %14s", ((stacks[s], key) in mibs) ? mibs[stacks[s], key] : "cut"
            for (s = 4; s <= nstacks; s++) {
                p = ((stacks[s], key) in mibs) ? mibs[stacks[s], key] + 0 : 0
                printf " %12s %10s", (best > 0 && p > 0) ? sprintf("%.2f", p / best) : "-",
                    (k[1] == "write" && seq > 0 && p > 0) ? sprintf("%.2f", p / seq) : "-"
            }
            printf "  "
            for (s = 1; s <= nstacks; s++) printf " %s", ((stacks[s], key) in mem) ? mem[stacks[s], key] : "-"
            printf "\n"
        }
    }' "$results"
