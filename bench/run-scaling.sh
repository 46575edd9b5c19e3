#!/usr/bin/env bash
# How collective I/O scales with the rank count, at a fixed total size: a distributed N^3 array of doubles (1 GiB by
# default) written (synced) and read collectively, BLOCK on MPI_Dims_create's balanced grid and CYCLIC(1) over the
# last dimension, by 1, 2, 4, 8 and 16 JVM ranks beside MPICH's ROMIO and Open MPI's OMPIO with as many processes,
# and by 4, 16, 64 and 256 ranks as threads of one JVM (pario bench io --threads). Every job is the one
# bench/run-io.sh runs (a warm-up of an eighth of the data first, the page cache dropped before the read), once
# each; a C stack's job is cut after PARIO_BENCH_LIMIT seconds (default 150), which CYCLIC(1) reaches from a few
# ranks on (shown as "cut"; a job that finished its write in time still counts for it).
# Prints throughput (MiB/s) and peak resident memory per rank (the largest rank's, MiB; for thread ranks the JVM's
# shared out over them) for each rank count, and draws them as PNG plots with org.pario.bench.LinePlot into
# PARIO_BENCH_PLOTS (default bench/target/scaling; docs/figures for the docs).
# Usage: bench/run-scaling.sh [EDGE] [DIR]   (default: 512 = 1 GiB, in bench/target/scaling);
#        PARIO_BENCH_JVM_RANKS="1 2 4 8 16", PARIO_BENCH_THREAD_RANKS="4 16 64 256",
#        PARIO_BENCH_STACKS="mpich openmpi pario pario-threads" (default all), PARIO_BENCH_SETTLE (default 6),
#        PARIO_BENCH_PLOTS=DIR; PARIO_BENCH_APPEND=1 keeps the figures of the run before and adds this run's to them (a
#        cell run again takes the new figure), to run again a cell that failed
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/target/scaling"
mkdir -p "$out"
edge=${1:-512}
dir=${2:-$out}
stacks=" ${PARIO_BENCH_STACKS:-mpich openmpi pario pario-threads} "
. "$root/bench/mpi-stacks.sh"
if [[ "$stacks" == *" mpich "* || "$stacks" == *" openmpi "* ]]; then
    install_mpi_stacks
    build_with_both "$root/bench/c/io_bench.c" "$out/io"
fi
(cd "$root" && mvn -B -q -DskipTests -pl bench,cli -am package)
limit=${PARIO_BENCH_LIMIT:-150}
settle=${PARIO_BENCH_SETTLE:-6}
export PARIO_BENCH_SETTLE=$settle PARIO_BENCH_READ_SETTLE=${PARIO_BENCH_READ_SETTLE:-$settle}
file="$dir/run-scaling.bin"
results="$out/results.txt"
[ "${PARIO_BENCH_APPEND:-0}" = 1 ] || : > "$results"
jobs=0
grid() { # ranks: MPI_Dims_create's balanced 3-D grid, as AxBxC
    case $1 in
        1) echo 1x1x1 ;; 2) echo 2x1x1 ;; 4) echo 2x2x1 ;; 8) echo 2x2x2 ;; 16) echo 4x2x2 ;; 32) echo 4x4x2 ;;
        64) echo 4x4x4 ;; 128) echo 8x4x4 ;; 256) echo 8x8x4 ;;
        *) echo "no grid for $1 ranks here" >&2; exit 2 ;;
    esac
}
bench=(java -jar "$root/cli/target/pario.jar" bench io --size "$edge" --file "$file")
for n in ${PARIO_BENCH_JVM_RANKS:-1 2 4 8 16}; do
    for p in "$(grid "$n")" cyclic; do
        if [[ "$stacks" == *" mpich "* ]]; then
            run_io_job MPICH-ROMIO mpiexec.mpich -n "$n" "$out/io_mpich" "$p" "$edge" "$file"
        fi
        if [[ "$stacks" == *" openmpi "* ]]; then
            run_io_job OpenMPI-OMPIO mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --mca io ompio \
                "$out/io_openmpi" "$p" "$edge" "$file"
        fi
        if [[ "$stacks" == *" pario "* ]]; then
            run_io_job Pario "${bench[@]}" -n "$n" --pattern "$p"
        fi
    done
done
if [[ "$stacks" == *" pario-threads "* ]]; then
    for n in ${PARIO_BENCH_THREAD_RANKS:-4 16 64 256}; do
        for p in "$(grid "$n")" cyclic; do
            run_io_job Pario-threads java -Xmx8g -jar "$root/cli/target/pario.jar" bench io \
                --threads --size "$edge" --file "$file" -n "$n" --pattern "$p"
        done
    done
fi
# one table per kind of rank: a row per rank count, a column per stack, pattern and phase; "cut" where a job did not
# give the figure; BLOCK's grid is named "block" so that its rows line up across rank counts
table() { # field (5: MiB/s, 7: peak MiB of the largest rank) kind (jvm|threads)
    awk -v f="$1" -v kind="$2" '
        ($1 == "Pario-threads") != (kind == "threads") { next }
        { stack = $1; pattern = ($3 == "cyclic" ? "cyclic" : "block"); col = stack "/" pattern "/" $2
          if (!(col in seen)) { seen[col] = 1; cols[++ncols] = col }
          if (!($4 in seenRanks)) { seenRanks[$4] = 1; ranks[++nranks] = $4 }
          v[$4, col] = $f }
        END {
            printf "ranks"; for (c = 1; c <= ncols; c++) printf " %s", cols[c]; printf "\n"
            for (r = 1; r <= nranks; r++) {
                printf "%s", ranks[r]
                for (c = 1; c <= ncols; c++) printf " %s", ((ranks[r], cols[c]) in v) ? v[ranks[r], cols[c]] : "-"
                printf "\n"
            }
        }' "$results"
}
echo "== JVM ranks and MPI processes: MiB/s"; table 5 jvm | column -t
echo "== JVM ranks and MPI processes: peak resident MiB of the largest rank"; table 7 jvm | column -t
echo "== thread ranks: MiB/s"; table 5 threads | column -t
echo "== thread ranks: peak resident MiB of the JVM over the ranks"; table 7 threads | column -t
plots=${PARIO_BENCH_PLOTS:-$out}
mkdir -p "$plots"
plot() { # name title y-label field kind phase: one line per stack and pattern of that phase, if any ran
    [ "$(table "$4" "$5" | wc -l)" -gt 1 ] || return 0
    table "$4" "$5" | awk -v phase="$6" '
        NR == 1 { for (i = 2; i <= NF; i++) if ($i ~ "/" phase "$") { keep[++n] = i; sub("/" phase "$", "", $i) } }
        { printf "%s", $1; for (k = 1; k <= n; k++) printf " %s", $keep[k]; printf "\n" }' \
        | java -cp "$root/bench/target/benchmarks.jar" org.pario.bench.LinePlot "$plots/$1.png" "$2" \
            "ranks" "$3" logx logy
}
for phase in write read; do
    plot "scaling-jvm-$phase" "Collective $phase, JVM ranks and MPI processes" "MiB/s" 5 jvm "$phase"
    plot "scaling-threads-$phase" "Collective $phase, thread ranks in one JVM" "MiB/s" 5 threads "$phase"
done
plot scaling-jvm-memory "Peak resident memory of the largest rank, collective write" "MiB" 7 jvm write
plot scaling-threads-memory "Peak resident memory per thread rank, collective write" "MiB" 7 threads write
