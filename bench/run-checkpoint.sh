#!/usr/bin/env bash
# Checkpoints side by side: `pario bench checkpoint` (Pario's checkpoint write, restore on the same ranks and on one
# rank fewer, verify, beside the raw collective write + sync and read of the same data through the same view, in
# the same job) and parallel HDF5 writing and reading the same array as one dataset with a collective
# H5Dwrite/H5Dread of every rank's hyperslab (bench/c/hdf5_checkpoint.c), contiguous and chunked with Fletcher-32
# checksums, for BLOCK 2x2x1 and CYCLIC(1), 4 ranks, on the same disk in the same run. Runs alternate between the
# two, REPS times each (default 3); the table shows medians and Pario's ratios. Installs MPICH and Debian's
# parallel HDF5 for it (apt-get) when missing. Every run starts PARIO_BENCH_SETTLE seconds (default 6) after the
# previous one, and every read PARIO_BENCH_READ_SETTLE seconds after the page cache was dropped (bench/run-io.sh
# says why).
# Usage: bench/run-checkpoint.sh [EDGE] [DIR]   (default: 512 = 1 GiB, in bench/target/checkpoint);
#        PARIO_BENCH_REPS=N; PARIO_BENCH_PATTERNS="2x2x1 cyclic"; PARIO_BENCH_ROUNDS=R (default 5) rounds in each
#        Pario job, of which all but the first count for the warm phases (the first checkpoint counts once a job;
#        the job runs each raw phase before its checkpoint phase in odd rounds and after it in even ones, so an odd
#        R counts as many rounds of either order);
#        PARIO_BENCH_STACKS="pario hdf5" (default both); PARIO_BENCH_COMPUTE="0 5" runs each Pario job once per
#        value, the ranks waiting that many seconds (standing for a job's computation) before their first checkpoint
#        (default 0: right after the JVMs start); a first checkpoint after S > 0 seconds shows as first-after-Ss;
#        every Pario job calls Checkpoint.prepare first; PARIO_BENCH_UNPREPARED="5" also runs the jobs of those
#        compute values without it (--no-prepare), of which only the first checkpoint counts, as ...-unprepared
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/target/checkpoint"
mkdir -p "$out"
edge=${1:-512}
dir=${2:-$out}
. "$root/bench/mpi-stacks.sh"
install_mpi_stacks
if ! dpkg -s libhdf5-mpich-dev >/dev/null 2>&1; then
    as_root=""
    [ "$(id -u)" -ne 0 ] && as_root="sudo"
    DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq libhdf5-mpich-dev >/dev/null
fi
mpicc.mpich -O2 -I/usr/include/hdf5/mpich -o "$out/hdf5_checkpoint" "$root/bench/c/hdf5_checkpoint.c" \
    -L/usr/lib/x86_64-linux-gnu/hdf5/mpich -lhdf5
(cd "$root" && mvn -B -q -DskipTests -pl cli -am package)
settle=${PARIO_BENCH_SETTLE:-6}
export PARIO_BENCH_SETTLE=$settle
export PARIO_BENCH_READ_SETTLE=${PARIO_BENCH_READ_SETTLE:-$settle}
limit=${PARIO_BENCH_LIMIT:-900}
reps=${PARIO_BENCH_REPS:-3}
results="$out/results.txt"
: > "$results"
# five: a job compiles into its second round, and more rounds a job spread less than more jobs (benchmarks.md)
rounds=${PARIO_BENCH_ROUNDS:-5}
stacks=${PARIO_BENCH_STACKS:-pario hdf5}
jobs=0
run() { # label compute-seconds prepared(yes/no) command...
    local label=$1 compute=$2 prepared=$3; shift 3
    jobs=$((jobs + 1))
    local errors="$out/job-$jobs.err" before
    before=$(wc -l < "$results")
    # a Pario job's warm phases count in every round but its first; its first checkpoint, and HDF5's lines, always;
    # an unprepared job counts for its first checkpoint only
    timeout "$limit" "$@" 2>"$errors" | awk -v l="$label" -v c="$compute" -v p="$prepared" '
        /^# round / { round = $3 }
        /^[a-z0-9-]+ [a-z0-9x]+ [0-9]+ [0-9.]+ [0-9.]+$/ {
            if ($1 == "first-checkpoint" && c > 0) $1 = "first-after-" c "s"
            if (p == "no") { if ($1 ~ /^first-/) print l, $1 "-unprepared", $2, $3, $4, $5; next }
            if (l != "Pario" || $1 ~ /^first-/ || round > 1) print l, $0 }' >> "$results" || true
    if [ "$(wc -l < "$results")" -eq "$before" ]; then
        # a job that counts nothing is left out of the medians, not hidden: say so, and keep what it printed
        echo "job $jobs ($label: $*) gave no figures; its errors are in $errors" >&2
    else
        rm -f "$errors"
    fi
    rm -f "$dir"/run-checkpoint*
    sleep "$settle"
}
for ((i = 0; i < reps; i++)); do
    for p in ${PARIO_BENCH_PATTERNS:-2x2x1 cyclic}; do
        if [[ " $stacks " == *" pario "* ]]; then
            for c in ${PARIO_BENCH_COMPUTE:-0}; do
                run Pario "$c" yes java -jar "$root/cli/target/pario.jar" bench checkpoint -n 4 --size "$edge" \
                    --pattern "$p" --rounds "$rounds" --compute "$c" --file "$dir/run-checkpoint"
            done
            for c in ${PARIO_BENCH_UNPREPARED:-}; do
                run Pario "$c" no java -jar "$root/cli/target/pario.jar" bench checkpoint -n 4 --size "$edge" \
                    --pattern "$p" --rounds 1 --compute "$c" --no-prepare --file "$dir/run-checkpoint"
            done
        fi
        if [[ " $stacks " == *" hdf5 "* ]]; then
            run HDF5 0 yes mpiexec.mpich -n 4 "$out/hdf5_checkpoint" "$p" "$edge" "$dir/run-checkpoint.h5" contiguous 1
            run HDF5 0 yes mpiexec.mpich -n 4 "$out/hdf5_checkpoint" "$p" "$edge" "$dir/run-checkpoint.h5" chunked 1
        fi
    done
done
awk '
    function median(list,    v, n, i, j, t) {
        n = split(list, v, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n % 2 ? v[(n + 1) / 2] : sprintf("%.1f", (v[n / 2] + v[n / 2 + 1]) / 2)
    }
    { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++count] = key }
      if (!($3 in pat)) { pat[$3] = 1; pats[++npat] = $3 }
      runs[key] = runs[key] " " $5 }
    END {
        printf "%-20s %-7s %10s %s\n", "phase", "pattern", "MiB/s", "  (median of runs)"
        for (i = 1; i <= count; i++) {
            split(order[i], k, " ")
            m[order[i]] = median(runs[order[i]])
            printf "%-20s %-7s %10s   %s\n", k[1], k[2], m[order[i]], runs[order[i]]
        }
        for (q = 1; q <= npat; q++) {
            p = pats[q]
            printf "%s: checkpoint/raw write %.2f, restore/raw read %.2f (of the checkpoint file itself %.2f), restore on 3/restore on 4 %.2f\n", p,
                m["checkpoint-write " p] / m["raw-write " p], m["restore " p] / m["raw-read " p],
                m["restore " p] / m["raw-read-checkpoint-file " p], m["restore-fewer " p] / m["restore " p]
            # a first checkpoint right after the JVMs start; one after a wait is named first-after-Ns (below)
            if (("first-checkpoint " p) in m) printf "%s: first/warm checkpoint %.2f\n", p,
                m["first-checkpoint " p] / m["checkpoint-write " p]
            for (key in m) if (key ~ /^first-after-/ && index(key, " " p) > 0) { split(key, f, " ")
                printf "%s: %s/warm checkpoint %.2f\n", p, f[1], m[key] / m["checkpoint-write " p] }
            if (("hdf5-contiguous-write " p) in m) printf "%s: checkpoint/HDF5 contiguous write %.2f, chunked+fletcher32 %.2f; restore/HDF5 contiguous read %.2f, chunked %.2f\n", p,
                m["checkpoint-write " p] / m["hdf5-contiguous-write " p], m["checkpoint-write " p] / m["hdf5-chunked-write " p],
                m["restore " p] / m["hdf5-contiguous-read " p], m["restore " p] / m["hdf5-chunked-read " p]
        }
    }' "$results"
