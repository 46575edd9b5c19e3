# Sourced by the benchmark scripts that run C programs beside Pario: installs MPICH and Open MPI with their
# headers when missing (bin/test installs only what the tests run, so the compiler wrappers can be there without
# them), builds a C program against each stack, finds the JDK 22+ that Pario also runs on, and runs the I/O jobs.

# Installs MPICH and Open MPI (apt-get, through sudo when not root) unless both are there with their headers.
install_mpi_stacks() {
    local as_root=""
    [ "$(id -u)" -ne 0 ] && as_root="sudo"
    if ! dpkg -s mpich libmpich-dev openmpi-bin libopenmpi-dev >/dev/null 2>&1; then
        $as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq mpich libmpich-dev openmpi-bin \
            libopenmpi-dev >/dev/null
    fi
}

# build_with_both SOURCE OUTPUT_PREFIX: compiles SOURCE into OUTPUT_PREFIX_mpich and OUTPUT_PREFIX_openmpi.
build_with_both() {
    mpicc.mpich -O2 -o "$2_mpich" "$1"
    mpicc.openmpi -O2 -o "$2_openmpi" "$1"
}

# find_newer_jdk: sets newer to the home of the newest JDK 22+ of the machine (bin/find-jdk), empty when there is
# none, and newer_version to its feature release (empty likewise).
find_newer_jdk() {
    newer=$("$(dirname "${BASH_SOURCE[0]}")/../bin/find-jdk" 22 2>/dev/null || true)
    newer_version=""
    if [ -n "$newer" ]; then
        newer_version=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$newer/release")
    fi
}

# run_io_job LABEL COMMAND...: runs one job of an I/O benchmark, cut after $limit seconds, and appends the lines it
# prints for its phases ("write ..." and "read ..."), each led by LABEL, to $results. A job that gives none (cut by the
# limit, or failed) is said on standard error with the file its errors were kept in ($out/job-N.err, N counting the
# script's jobs in $jobs); then $file and $file.warmup are deleted and the next job waits $settle seconds.
run_io_job() {
    local label=$1; shift
    jobs=$((jobs + 1))
    local errors="$out/job-$jobs.err" before
    before=$(wc -l < "$results")
    timeout "$limit" "$@" 2>"$errors" | awk -v l="$label" '/^(write|read) / { print l, $0 }' >> "$results" || true
    if [ "$(wc -l < "$results")" -eq "$before" ]; then
        echo "job $jobs ($label: $*) gave no figures; its errors are in $errors" >&2
    else
        rm -f "$errors"
    fi
    rm -f "$file" "$file.warmup"
    sleep "$settle"
}
