#!/usr/bin/env bash
# Collectives side by side: MPICH, Open MPI and Pario on the same operations and sizes, for 2 and 4 ranks on
# this machine, once with every stack over TCP and once on each stack's default path between processes of one
# host (shared memory). Installs MPICH and Open MPI (apt-get) when missing. Prints two tables per rank count
# with each stack's time and Pario's time divided by the best C stack's; over TCP also Pario's from direct
# ByteBuffers (`pario bench comm --direct`) beside its figures from double[] arrays, and, where the machine has a
# JDK 22 or newer (bin/find-jdk; the jar is then built by it), Pario's from double[] arrays and from direct
# ByteBuffers on that JVM, where the jar's classes for Java 22+ run (arrays then go to and from the sockets straight). Pario's other runs use the java first on the PATH (17, the baseline).
# Usage: bench/run-comm.sh [RANKS...]   (default: 2 4)
# PARIO_BENCH_ROUNDS=R (default 1) runs every program R times, the stacks taking turns, and gives each cell the
# median of its R times: on a shared virtual machine one run's large-message cells can be twice another's.
# Beside every run, bench/c/placement.c samples how far apart the host runs CPUs 0 and 1 (every 500 ms), and each
# program prints when it timed each cell. A cell measured while the CPUs sat anywhere but on two cores sharing a
# cache (a sample in its span, or the last before it or the first after it, says "apart" or "core") is left out of
# that cell's median, for every stack alike: apart, every stack's 64 KiB messages take up to twice as long and its
# 1 MiB ones three to four times (on a machine with more CPUs, CPUs 0 and 1 stand for all). Under each table, the
# cells with runs left out, and how many counted; a cell with none left takes the median of all its runs, marked
# there. PARIO_BENCH_PLACEMENT=any counts every run. PARIO_BENCH_TABLES_ONLY=1 prints the tables again from the
# last set's run files (bench/target/comm) without running anything.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/target/comm"
mkdir -p "$out"
ranks=("${@:-2 4}")
[ $# -eq 0 ] && ranks=(2 4)
. "$root/bench/mpi-stacks.sh"
tables_only=${PARIO_BENCH_TABLES_ONLY:-0}
find_newer_jdk
if [ "$tables_only" != 1 ]; then
    install_mpi_stacks
    build_with_both "$root/bench/c/comm_bench.c" "$out/comm_bench"
    gcc -O2 -pthread -o "$out/placement" "$root/bench/c/placement.c"
    (cd "$root" && JAVA_HOME="${newer:-${JAVA_HOME:-}}" mvn -B -q -DskipTests -pl cli -am package)
fi
# A stack that polls with more ranks than cores can take minutes; each run is bounded and reported as cut.
limit=${PARIO_BENCH_LIMIT:-300}
rounds=${PARIO_BENCH_ROUNDS:-1}
placement=${PARIO_BENCH_PLACEMENT:-cache}
stacks=${PARIO_BENCH_STACKS:-}
want() { # stack: whether this set runs it
    [ -z "$stacks" ] || [[ " $stacks " == *" $1 "* ]]
}
measure() { # stack command...: runs the command (bounded) into the stack's file of this round, sampler beside it
    local stack=$1; shift
    want "$stack" || return 0
    local file="$out/$stack-$n.$r.txt"
    "$out/placement" 500 > "$file.placement" &
    local sampler=$!
    timeout "$limit" "$@" > "$file" 2>"$file.err" || true
    kill "$sampler" && wait "$sampler" 2>/dev/null || true
    if grep -q -v '^#' "$file"; then
        rm -f "$file.err"
    else
        # cut by the time limit, or failed: said, with what it printed, not left out without a word
        echo "$stack ($*) gave no figures; its errors are in $file.err" >&2
    fi
    # each cell's span against the samples: the last one before it, those within it, the first one after it
    awk '
        FILENAME ~ /placement$/ { at[++m] = $1; where[m] = $4; next }
        $1 == "#" && $2 == "timed" {
            seen = ""
            for (i = 1; i <= m; i++) {
                if (at[i] <= $5 && (i == m || at[i + 1] > $5)) seen = seen " " where[i]
                else if (at[i] > $5 && at[i] < $6) seen = seen " " where[i]
                else if (at[i] >= $6 && (i == 1 || at[i - 1] < $6)) { seen = seen " " where[i]; break }
            }
            if (seen ~ /apart|core/) print $3, $4, seen
        }' "$file.placement" "$file" > "$file.moved"
}
median_of() { # output-file round-files...: each row's median time over the rounds, MiB/s from that median
    local target=$1; shift
    local files=()
    for f in "$@"; do [ -f "$f" ] && files+=("$f.moved" "$f"); done
    if [ ${#files[@]} -eq 0 ]; then
        : > "$target"
        : > "$target.left-out"
        return 0
    fi
    awk -v placement="$placement" '
        FILENAME ~ /moved$/ { moved[FILENAME, $1 " " $2] = 1; next }
        FNR == 1 && !header++ { print }
        !/^(pingpong|barrier|bcast|allreduce|gather|alltoall) / { next }
        { key = $1 " " $2; if (!(key in n)) order[++count] = key; all[key, ++n[key]] = $4
          if (placement == "any" || !((FILENAME ".moved", key) in moved)) v[key, ++kept[key]] = $4 }
        function median(arr, key, m,    a, b, x) {
            for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++)
                if (arr[key, b] + 0 < arr[key, a] + 0) { x = arr[key, a]; arr[key, a] = arr[key, b]; arr[key, b] = x }
            return m % 2 ? arr[key, (m + 1) / 2] : (arr[key, m / 2] + arr[key, m / 2 + 1]) / 2
        }
        END {
            for (i = 1; i <= count; i++) {
                key = order[i]
                t = kept[key] ? median(v, key, kept[key]) : median(all, key, n[key])
                if (kept[key] < n[key]) printf "%s %d %d\n", key, kept[key], n[key] > "/dev/stderr"
                split(key, k, " ")
                if (k[2] >= 65536) printf "%-10s %10d B %12.1f us %10.1f\n", k[1], k[2], t, k[2] / t * 1e6 / 1048576
                else printf "%-10s %10d B %12.1f us \n", k[1], k[2], t
            }
        }' "${files[@]}" > "$target" 2> "$target.left-out"
}
left_out() { # stacks...: the cells of each stack's medians that left runs out for where the CPUs sat
    local stack lines
    for stack in "$@"; do
        lines=$(awk '{ printf "%s%s %s %s of %s%s", (NR > 1 ? ", " : ""), $1, $2, $3, $4,
                       ($3 == 0 ? " (none: median of all)" : "") }' "$out/$stack-$n.txt.left-out")
        [ -n "$lines" ] && echo "- $stack, cells with runs left out, the CPUs not on one cache (runs counted): $lines"
    done
    return 0
}
table() { # title mpich-file openmpi-file pario-file [pario-direct-file [pario-newer-java-file [its-direct-file]]]
    echo
    echo "## $1 (times in us; MiB/s in parentheses; ratio columns: Pario / best C stack)"
    local direct=${5:-}
    local newer_file=${6:-}
    local newer_direct=${7:-}
    [ -n "$direct" ] && [ ! -s "$direct" ] && direct=""
    [ -n "$newer_file" ] && [ ! -s "$newer_file" ] && newer_file=""
    [ -n "$newer_direct" ] && [ ! -s "$newer_direct" ] && newer_direct=""
    # absent files keep their column numbers: every column reads its own file or /dev/null
    awk -v withDirect="${direct:+1}" -v withNewer="${newer_file:+1}" -v withNewerDirect="${newer_direct:+1}" \
        -v newerName="Pario, Java $newer_version" '
        { for (a = 1; a <= 6; a++) if (FILENAME == ARGV[a]) file = a }
        !/^(pingpong|barrier|bcast|allreduce|gather|alltoall) / { next }
        { key = $1 " " $2; keys[key] = 1; order[++count] = key; rows[file]++
          t[file, key] = $4; bw[file, key] = (NF >= 6 ? " (" $6 ")" : "") }
        function cell(f, key) { return t[f, key] == "" ? (rows[f] ? "cut" : "-") : t[f, key] bw[f, key] }
        function ratio(f, key, best) {
            return (best != "" && t[f, key] != "") ? sprintf("%.2f", t[f, key] / best) : "-"
        }
        END {
            printf "%-10s %10s %22s %22s %22s %8s", "operation", "bytes", "MPICH", "Open MPI", "Pario", "ratio"
            if (withDirect) printf " %22s %8s", "Pario, direct buffers", "ratio"
            if (withNewer) printf " %22s %8s", newerName, "ratio"
            if (withNewerDirect) printf " %22s %8s", newerName ", direct", "ratio"
            printf "\n"
            for (i = 1; i <= count; i++) {
                key = order[i]; if (seen[key]++) continue
                split(key, k, " ")
                best = ""
                for (f = 1; f <= 2; f++) if (t[f, key] != "" && (best == "" || t[f, key] + 0 < best + 0)) best = t[f, key]
                printf "%-10s %10s %22s %22s %22s %8s", k[1], k[2], cell(1, key), cell(2, key), cell(3, key),
                    ratio(3, key, best)
                if (withDirect) printf " %22s %8s", cell(4, key), ratio(4, key, best)
                if (withNewer) printf " %22s %8s", cell(5, key), ratio(5, key, best)
                if (withNewerDirect) printf " %22s %8s", cell(6, key), ratio(6, key, best)
                printf "\n"
            }
        }' "$2" "$3" "$4" "${direct:-/dev/null}" "${newer_file:-/dev/null}" "${newer_direct:-/dev/null}"
}
for n in "${ranks[@]}"; do
    for r in $(seq 1 "$rounds"); do
        [ "$tables_only" = 1 ] && break
        # over TCP: every stack forced onto its TCP path, Pario's shared-memory path for large messages off
        measure mpich mpiexec.mpich -n "$n" -env MPIR_CVAR_NOLOCAL 1 -env UCX_TLS tcp,self \
            "$out/comm_bench_mpich" "MPICH" windows
        measure openmpi mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --mca pml ob1 \
            --mca btl tcp,self "$out/comm_bench_openmpi" "Open MPI" windows
        measure pario java -Dpario.sharedMemory=false -jar "$root/cli/target/pario.jar" bench comm \
            -n "$n" --windows
        # the same from direct ByteBuffers, which the kernel can read and write in place
        measure pario-direct java -Dpario.sharedMemory=false -jar "$root/cli/target/pario.jar" \
            bench comm -n "$n" --direct --windows
        # from double[] arrays again, on the newer JVM
        if [ -n "$newer" ]; then
            measure pario-newer "$newer/bin/java" --enable-native-access=ALL-UNNAMED -Dpario.sharedMemory=false \
                -jar "$root/cli/target/pario.jar" bench comm -n "$n" --windows
            measure pario-newer-direct "$newer/bin/java" --enable-native-access=ALL-UNNAMED \
                -Dpario.sharedMemory=false -jar "$root/cli/target/pario.jar" bench comm -n "$n" --direct --windows
        fi
        # on one host: each stack's default path between processes of one host (shared memory)
        measure mpich-local mpiexec.mpich -n "$n" "$out/comm_bench_mpich" "MPICH" windows
        measure openmpi-local mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" \
            "$out/comm_bench_openmpi" "Open MPI" windows
        measure pario-local java -jar "$root/cli/target/pario.jar" bench comm -n "$n" --windows
    done
    for stack in mpich openmpi pario pario-direct pario-newer pario-newer-direct mpich-local openmpi-local pario-local; do
        if want "$stack"; then
            median_of "$out/$stack-$n.txt" $(for r in $(seq 1 "$rounds"); do echo "$out/$stack-$n.$r.txt"; done)
        else
            : > "$out/$stack-$n.txt"
            : > "$out/$stack-$n.txt.left-out"
        fi
    done
    table "$n ranks over TCP$([ "$rounds" -gt 1 ] && echo ", medians of $rounds runs")" "$out/mpich-$n.txt" \
        "$out/openmpi-$n.txt" "$out/pario-$n.txt" "$out/pario-direct-$n.txt" "$out/pario-newer-$n.txt" \
        "$out/pario-newer-direct-$n.txt"
    left_out mpich openmpi pario pario-direct pario-newer pario-newer-direct
    table "$n ranks on one host, each stack's default path$([ "$rounds" -gt 1 ] && echo ", medians of $rounds runs")" \
        "$out/mpich-local-$n.txt" "$out/openmpi-local-$n.txt" "$out/pario-local-$n.txt"
    left_out mpich-local openmpi-local pario-local
done
