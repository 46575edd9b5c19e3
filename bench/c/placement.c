/* How far apart the host runs two CPUs of this machine, sampled while a benchmark runs. On a virtual machine the
 * host moves the virtual CPUs between its cores: both onto one core's two hardware threads, onto two cores that
 * share a cache, or onto cores that do not, where every cache line one CPU writes and the other reads crosses the
 * chip. Loopback TCP between two ranks is such traffic (the sender's kernel writes the socket buffers, the
 * receiver's copies out of them), so a run of any MPI stack goes at the speed of the placement it gets.
 * Each sample pins one thread to each CPU and times a cache line handed back and forth (ns a round trip, the median
 * of 200 batches of 10) and 64 KiB written by one CPU and copied out by the other (us a hand-over, the median of
 * 50). Both threads run at real-time priority while they sample, so that a benchmark keeping the CPUs busy does
 * not slow the samples down (each takes 1-3 ms of both CPUs); medians, for what still comes between.
 * Every INTERVAL ms it prints a line: the time in seconds of the monotonic clock (the clock of the "# timed" lines
 * of `pario bench comm --windows` and of comm_bench.c with "windows"), the two figures, and the placement the
 * hand-over's time points to: "core" (under CORE_US), "apart" (over APART_US) or "cache". It runs until killed,
 * or for DURATION seconds.
 * Build and run: gcc -O2 -pthread -o placement placement.c && ./placement [INTERVAL_MS] [DURATION_S] [CPU_A] [CPU_B]
 * (defaults: 500 ms, until killed, CPUs 0 and 1)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_ROUNDS 2000
#define COPY_ROUNDS 50
#define BATCH 10
#define COPY_BYTES (64 << 10)
#define CORE_US 5.0
#define APART_US 20.0

static _Alignas(128) _Atomic long turn;
static _Alignas(128) _Atomic int ready;
static char *handed, *source, *sink;
static int cpu_b;
static int copying;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static long asked, served;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Pins this thread to a CPU, ahead of every ordinary thread there: a sample times the hardware, so a benchmark's
 * threads, which keep both CPUs busy (an MPI stack on shared memory polls without pause), must not slice into it.
 * Without the right to real-time scheduling (root or CAP_SYS_NICE) the samples of busy CPUs come out slow. */
static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        /* two threads on one CPU at real-time priority would spin against each other */
        fprintf(stderr, "placement: cannot run on CPU %d\n", cpu);
        exit(2);
    }
    struct sched_param first = {.sched_priority = 1};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &first) != 0) {
        fprintf(stderr, "placement: no real-time priority; samples of busy CPUs may read as apart\n");
    }
}

/* The other CPU's side, for the whole run: sleeps between samples (a sampler must not take a CPU from the
 * benchmark), and in one it answers each odd turn with the even, copying the hand-over out first when asked. */
static void *answer(void *unused) {
    (void) unused;
    pin(cpu_b);
    for (;;) {
        pthread_mutex_lock(&lock);
        while (asked == served) {
            pthread_cond_wait(&wake, &lock);
        }
        served = asked;
        pthread_mutex_unlock(&lock);
        const long rounds = copying ? COPY_ROUNDS : LINE_ROUNDS;
        atomic_store_explicit(&ready, 1, memory_order_release);
        for (long i = 0; i < rounds; i++) {
            while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * i + 1) {
            }
            if (copying) {
                memcpy(sink, handed, COPY_BYTES);
            }
            atomic_store_explicit(&turn, 2 * i + 2, memory_order_release);
        }
    }
    return 0;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* One exchange from this thread (pinned to the first CPU), timed from the moment the other side is awake and
 * spinning on its CPU, so that waking and moving it is not counted. Rounds are timed in batches of BATCH and the
 * median batch is taken: while a benchmark runs, the scheduler now and then preempts one side for a time slice,
 * which would swamp a mean. Seconds per round. */
static double exchange(int copy) {
    const long rounds = copy ? COPY_ROUNDS : LINE_ROUNDS;
    const long batch = copy ? 1 : BATCH;
    double took[LINE_ROUNDS];
    atomic_store(&turn, 0);
    atomic_store(&ready, 0);
    copying = copy;
    pthread_mutex_lock(&lock);
    asked++;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    while (!atomic_load_explicit(&ready, memory_order_acquire)) {
        sched_yield(); /* the other side may wait for a busy CPU: leave this one to the benchmark meanwhile */
    }
    double start = now();
    for (long i = 0; i < rounds; i++) {
        if (copy) {
            memcpy(handed, source, COPY_BYTES);
        }
        atomic_store_explicit(&turn, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * i + 2) {
        }
        if ((i + 1) % batch == 0) {
            const double t = now();
            took[i / batch] = (t - start) / batch;
            start = t;
        }
    }
    const long batches = rounds / batch;
    qsort(took, batches, sizeof took[0], by_value);
    return took[batches / 2];
}

int main(int argc, char **argv) {
    const long interval_ms = argc > 1 ? atol(argv[1]) : 500;
    const double duration = argc > 2 ? atof(argv[2]) : 0;
    const int cpu_a = argc > 3 ? atoi(argv[3]) : 0;
    cpu_b = argc > 4 ? atoi(argv[4]) : 1;
    handed = aligned_alloc(4096, COPY_BYTES);
    source = aligned_alloc(4096, COPY_BYTES);
    sink = aligned_alloc(4096, COPY_BYTES);
    memset(handed, 1, COPY_BYTES);
    memset(source, 2, COPY_BYTES);
    memset(sink, 3, COPY_BYTES);
    signal(SIGTERM, SIG_DFL);
    pin(cpu_a);
    pthread_t other;
    pthread_create(&other, 0, answer, 0);
    setvbuf(stdout, 0, _IOLBF, 0);
    const double start = now();
    while (duration <= 0 || now() - start < duration) {
        const double line_ns = exchange(0) * 1e9;
        const double copy_us = exchange(1) * 1e6;
        const char *place = copy_us < CORE_US ? "core" : copy_us > APART_US ? "apart" : "cache";
        printf("%.3f %.0f %.1f %s\n", now(), line_ns, copy_us, place);
        usleep(interval_ms * 1000);
    }
    return 0;
}
