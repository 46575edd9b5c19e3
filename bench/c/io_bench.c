/*
 * Collective write (synced) and read of an N x N x N array of doubles distributed as a darray, through MPI-IO:
 * the C side of `pario bench io`, printing the same lines:
 *   write|read PATTERN RANKS MiB/s SECONDS PEAK_RSS_MIB_MAX PEAK_RSS_MIB_SUM
 * PATTERN is AxBxC (BLOCK on that grid, C order) or cyclic (CYCLIC(1) over the last dimension). Element i of the
 * global array holds i; the read checks every value. Right before the timed read, rank 0 drops the page cache
 * when it may. With PATTERN "sequential" and one rank, it writes the same number of bytes with plain write() calls of
 * 16 MiB and one fsync: the limit a collective write through the page cache can reach; "sequential-direct" does
 * the same with O_DIRECT from an aligned buffer (no page cache), the limit of the disk itself.
 * Before the timed phases, an eighth of each rank's data (PARIO_BENCH_WARMUP) is written and read through the same
 * view to a scratch file, untimed, as Pario's benchmark does.
 * Usage: io_bench PATTERN N FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

static long peak_rss_mib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) kb = atol(line + 6);
    }
    fclose(f);
    return kb < 0 ? -1 : kb / 1024;
}

/* Writes (synced) and reads the first count elements of every rank through the view, untimed, to a scratch file it
 * then deletes, as Pario's benchmark does before its timed phases (PARIO_BENCH_WARMUP, the part of each rank's data,
 * default 0.125; 0 for none): both sides are measured with their buffers allocated and, for Pario, its code
 * compiled. */
static void warm_up(const char *path, MPI_Datatype ft, double *local, long long count) {
    char scratch[4096];
    int rank;
    MPI_File f;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(scratch, sizeof scratch, "%s.warmup", path);
    MPI_File_open(MPI_COMM_WORLD, scratch, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f);
    MPI_File_set_view(f, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_File_write_all(f, local, (int) count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_sync(f);
    MPI_File_close(&f);
    MPI_File_open(MPI_COMM_WORLD, scratch, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    MPI_File_set_view(f, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_File_read_all(f, local, (int) count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&f);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(scratch);
    MPI_Barrier(MPI_COMM_WORLD);
    /* freed memory settles before the timed phases (PARIO_BENCH_SETTLE) */
    pause_for("PARIO_BENCH_SETTLE");
}

static void report(const char *phase, const char *pattern, int size, long long bytes, double t0) {
    double mine = MPI_Wtime() - t0, slowest;
    long rss = peak_rss_mib(), max, sum;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&rss, &max, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&rss, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s %s %d %.1f %.3f %ld %ld\n", phase, pattern, size, bytes / 1048576.0 / slowest, slowest, max, sum);
        fflush(stdout);
    }
}

/* Fills local with the global indices this rank owns, in the darray's (C) order. */
static long long fill(double *local, const char *pattern, int size, int rank, long n, const int *psizes) {
    long long k = 0;
    if (strcmp(pattern, "cyclic") == 0) {
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                for (long z = rank; z < n; z += size) local[k++] = (double) ((i * n + j) * n + z);
        return k;
    }
    int c[3] = {rank / (psizes[1] * psizes[2]), rank / psizes[2] % psizes[1], rank % psizes[2]};
    long lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        long b = (n + psizes[d] - 1) / psizes[d];
        lo[d] = c[d] * b;
        hi[d] = lo[d] + b < n ? lo[d] + b : n;
    }
    for (long i = lo[0]; i < hi[0]; i++)
        for (long j = lo[1]; j < hi[1]; j++)
            for (long z = lo[2]; z < hi[2]; z++) local[k++] = (double) ((i * n + j) * n + z);
    return k;
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4) {
        if (rank == 0) fprintf(stderr, "usage: io_bench PATTERN N FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *pattern = argv[1];
    long n = atol(argv[2]);
    const char *path = argv[3];
    long long total = (long long) n * n * n * 8;
    if (strcmp(pattern, "sequential") == 0 || strcmp(pattern, "sequential-direct") == 0) {
        size_t chunk = 16 << 20;
        int direct = strcmp(pattern, "sequential-direct") == 0;
        char *buf;
        if (posix_memalign((void **) &buf, 4096, chunk) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
        memset(buf, 1, chunk);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | (direct ? O_DIRECT : 0), 0644);
        if (fd < 0) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        double t0 = MPI_Wtime();
        for (long long done = 0; done < total; done += chunk) {
            if (write(fd, buf, chunk) != (ssize_t) chunk) MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fsync(fd);
        close(fd);
        report("write", pattern, size, total, t0);
        unlink(path);
        MPI_Finalize();
        return 0;
    }
    int gsizes[3] = {(int) n, (int) n, (int) n}, distribs[3], dargs[3], psizes[3];
    if (strcmp(pattern, "cyclic") == 0) {
        int d[3] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC};
        int a[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 1};
        int p[3] = {1, 1, size};
        memcpy(distribs, d, sizeof d);
        memcpy(dargs, a, sizeof a);
        memcpy(psizes, p, sizeof p);
    } else {
        if (sscanf(pattern, "%dx%dx%d", &psizes[0], &psizes[1], &psizes[2]) != 3
            || psizes[0] * psizes[1] * psizes[2] != size) {
            if (rank == 0) fprintf(stderr, "pattern %s does not fit %d ranks\n", pattern, size);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (int d = 0; d < 3; d++) {
            distribs[d] = MPI_DISTRIBUTE_BLOCK;
            dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
        }
    }
    MPI_Datatype ft;
    MPI_Type_create_darray(size, rank, 3, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    int tsize;
    MPI_Type_size(ft, &tsize);
    long long count = tsize / 8;
    double *local = malloc(count * sizeof(double));
    if (fill(local, pattern, size, rank, n, psizes) != count) MPI_Abort(MPI_COMM_WORLD, 3);
    if (rank == 0) {
        printf("# %s, %d ranks, %ld^3 doubles (%lld MiB), %s\n", getenv("IO_BENCH_LABEL") ? getenv("IO_BENCH_LABEL")
            : "MPI", size, n, total >> 20, pattern);
    }
    const char *warmup = getenv("PARIO_BENCH_WARMUP");
    long long warm = (long long) (count * (warmup && *warmup ? atof(warmup) : 0.125) + 0.5);
    if (warm > count) warm = count;
    /* its read brings back the values it wrote, so local is unchanged */
    if (warm > 0) warm_up(path, ft, local, warm);
    MPI_File f;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f);
    MPI_File_set_view(f, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_write_all(f, local, (int) count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_sync(f);
    report("write", pattern, size, total, t0);
    MPI_File_close(&f);
    memset(local, 0, count * sizeof(double));
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    MPI_File_set_view(f, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    /* right before the timed read, as Pario's benchmark does, so that the wait after it (if any) is the only time
     * between drop and read */
    if (rank == 0) drop_caches();
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    MPI_File_read_all(f, local, (int) count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    report("read", pattern, size, total, t0);
    MPI_File_close(&f);
    double *expect = malloc(count * sizeof(double));
    fill(expect, pattern, size, rank, n, psizes);
    if (memcmp(expect, local, count * sizeof(double)) != 0) {
        fprintf(stderr, "rank %d read back wrong values\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
    MPI_Finalize();
    return 0;
}
