/* The C counterpart of org.pario.cli.CommBenchmark: same operations, sizes, repetitions and output format.
 * Build and run: mpicc -O2 -o comm_bench comm_bench.c && mpiexec -n 4 ./comm_bench [NAME [windows]]
 * With "windows", each line is followed by "# timed OPERATION BYTES START END": when rank 0 timed its calls, in
 * seconds of the monotonic clock, as `pario bench comm --windows` prints them and bench/c/placement.c its samples. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double window_start, window_end;

static double monotonic(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

#define TIME(REPS, OP) ({                                                  \
    int reps_ = (REPS);                                                    \
    for (int i = 0; i < (reps_ < 50 ? reps_ : 50); i++) { OP; }            \
    double *t_ = malloc(sizeof(double) * reps_);                           \
    window_start = monotonic();                                            \
    for (int i = 0; i < reps_; i++) {                                      \
        MPI_Barrier(MPI_COMM_WORLD);                                       \
        double t0 = MPI_Wtime(); OP; t_[i] = (MPI_Wtime() - t0) * 1e6;     \
    }                                                                      \
    window_end = monotonic();                                              \
    qsort(t_, reps_, sizeof(double), cmp);                                 \
    double med_ = t_[reps_ / 2], max_;                                     \
    free(t_);                                                              \
    MPI_Allreduce(&med_, &max_, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);   \
    max_; })

/* count doubles, every one written, as a program's data is and as Pario's benchmark writes its arrays: calloc's
 * untouched pages all map the kernel's one zero page, so a socket write from them reads one page that stays in the
 * cache instead of the buffer's memory. The values are those of CommBenchmark's buffers. */
static double *filled(size_t count) {
    double *d = malloc(count * 8);
    for (size_t i = 0; i < count; i++) d[i] = (double) (i % 1000);
    return d;
}

/* Rank 0 sends count doubles to rank 1, which sends as many back; the other ranks wait. */
static void ping_pong(int rank, double *a, double *b, int count) {
    if (rank == 0) {
        MPI_Send(a, count, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(b, count, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(b, count, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, count, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
}

/* The five operations and a ping-pong of count doubles per rank, untimed, for rounds rounds or seconds s by rank
 * 0's clock, whichever ends first. */
static void warm_up(int rank, int n, int count, int rounds, double seconds) {
    int more = 1, per = count / n > 0 ? count / n : 1;
    double *a = filled(count), *b = filled(count), *all = filled((size_t) count * n);
    double *s = filled((size_t) per * n), *r = filled((size_t) per * n), start = MPI_Wtime();
    for (int i = 0; more; i++) {
        more = i < rounds && MPI_Wtime() - start < seconds;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(a, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Gather(a, count, MPI_DOUBLE, all, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Alltoall(s, per, MPI_DOUBLE, r, per, MPI_DOUBLE, MPI_COMM_WORLD);
        if (n > 1) ping_pong(rank, a, b, count);
    }
    free(a); free(b); free(all); free(s); free(r);
}

static int windows;

static void report(int rank, const char *op, long bytes, double us) {
    if (rank != 0) return;
    if (bytes >= 65536) printf("%-10s %10ld B %12.1f us %10.1f\n", op, bytes, us, bytes / us * 1e6 / (1 << 20));
    else printf("%-10s %10ld B %12.1f us \n", op, bytes, us);
    if (windows) printf("# timed %s %ld %.3f %.3f\n", op, bytes, window_start, window_end);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    windows = argc > 2 && strcmp(argv[2], "windows") == 0;
    if (rank == 0) printf("# %s, %d ranks\n", argc > 1 ? argv[1] : "C MPI", n);
    /* the same untimed warm-up as CommBenchmark.warmUp: the five operations and a ping-pong at 1 MiB (3000 rounds
     * or 8 s), 16 MiB (100 rounds or 3 s) and 8 B (10000 rounds or 5 s) per rank */
    warm_up(rank, n, (1 << 20) / 8, 3000, 8.0);
    warm_up(rank, n, (16 << 20) / 8, 100, 3.0);
    warm_up(rank, n, 1, 10000, 5.0);
    report(rank, "barrier", 0, TIME(2000, MPI_Barrier(MPI_COMM_WORLD)));
    long sizes[] = {8, 65536, 1 << 20, 16 << 20, 64 << 20};
    for (int k = 0; k < 5; k++) {
        long size = sizes[k];
        int count = (int) (size / 8);
        double *a = filled(count), *b = filled(count), *all = filled((size_t) count * n);
        int reps = size <= 65536 ? 2000 : size <= (1 << 20) ? 100 : 30;
        /* half the round trip between ranks 0 and 1, the others waiting: the time of one message */
        report(rank, "pingpong", size, TIME(reps, ping_pong(rank, a, b, count)) / 2);
        report(rank, "bcast", size, TIME(reps, MPI_Bcast(a, count, MPI_DOUBLE, 0, MPI_COMM_WORLD)));
        report(rank, "allreduce", size, TIME(reps, MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)));
        report(rank, "gather", size, TIME(reps, MPI_Gather(a, count, MPI_DOUBLE, all, count, MPI_DOUBLE, 0,
            MPI_COMM_WORLD)));
        int per = count / n > 0 ? count / n : 1;
        double *s = filled((size_t) per * n), *r = filled((size_t) per * n);
        report(rank, "alltoall", size, TIME(reps, MPI_Alltoall(s, per, MPI_DOUBLE, r, per, MPI_DOUBLE,
            MPI_COMM_WORLD)));
        free(a); free(b); free(all); free(s); free(r);
    }
    MPI_Finalize();
    return 0;
}
