/* Whether some of this machine's memory copies slower than the rest: maps N buffers of SIZE MiB one after another
 * (the kernel hands them pages from its free lists in much the same order from run to run), fills them, and copies
 * each into one destination buffer five times, printing the best rate of each in GB/s, in order of allocation. On a
 * virtual machine whose memory the host backs unevenly (with small and large pages, or from more than one memory
 * node), a run of buffers comes out slower every time; a benchmark whose hot buffers land there runs slower from
 * start to end, whichever library it uses.
 * Build and run: gcc -O2 -o copy_regions copy_regions.c && ./copy_regions [N] [SIZE]   (default 64 buffers of 16 MiB)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static char *map(size_t bytes) {
    char *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return p;
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 64;
    const size_t bytes = (size_t) (argc > 2 ? atol(argv[2]) : 16) << 20;
    if (n < 1 || bytes == 0) {
        fprintf(stderr, "usage: copy_regions [N] [SIZE_MIB]\n");
        return 2;
    }
    char **buffers = malloc(n * sizeof(char *));
    double *best = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        buffers[i] = map(bytes);
        /* every page touched now, so that copies below measure the memory, not page faults */
        memset(buffers[i], i, bytes);
        best[i] = 1e9;
    }
    char *dst = map(bytes);
    memset(dst, 1, bytes);
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < n; i++) {
            const double t = now();
            memcpy(dst, buffers[i], bytes);
            const double s = now() - t;
            if (s < best[i]) {
                best[i] = s;
            }
        }
    }
    double lo = 1e9, hi = 0;
    for (int i = 0; i < n; i++) {
        const double rate = bytes / best[i] / 1e9;
        lo = rate < lo ? rate : lo;
        hi = rate > hi ? rate : hi;
        printf("%.1f%c", rate, (i + 1) % 16 == 0 || i == n - 1 ? '\n' : ' ');
    }
    printf("%d buffers of %zu MiB: best copy rate %.1f-%.1f GB/s\n", n, bytes >> 20, lo, hi);
    return 0;
}
