/*
 * What a process pays the first time it writes memory the kernel has not given it yet: maps MIB MiB of anonymous
 * memory, writes one byte per 4 KiB page (each write a page fault), then writes the whole of it again (no faults),
 * three times over, in 4 KiB pages and with transparent huge pages asked for (madvise). A machine where the first
 * pass runs far below the second makes every buffer a program allocates anew cost that much on its first use:
 * measured on the machine of docs/benchmarks.md, 11-19 us a 4 KiB page (200-360 MiB/s), against 6-21 GiB/s once
 * touched. Usage: first_touch MIB   (build: cc -O2 -o first_touch first_touch.c)
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

int main(int argc, char **argv) {
    if (argc != 2 || atol(argv[1]) <= 0) {
        fprintf(stderr, "usage: first_touch MIB\n");
        return 2;
    }
    const size_t bytes = (size_t) atol(argv[1]) << 20;
    for (int huge = 0; huge <= 1; huge++) {
        for (int pass = 0; pass < 3; pass++) {
            char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) {
                perror("mmap");
                return 1;
            }
            if (huge) {
                madvise(p, bytes, MADV_HUGEPAGE);
            }
            const double t0 = now();
            for (size_t i = 0; i < bytes; i += 4096) {
                p[i] = 1;
            }
            const double t1 = now();
            memset(p, 2, bytes);
            const double t2 = now();
            printf("%s pages: first touch %.0f MiB/s (%.2f us a 4 KiB page), touched again %.0f MiB/s\n",
                   huge ? "huge" : "4 KiB", (bytes >> 20) / (t1 - t0), (t1 - t0) / (bytes / 4096) * 1e6,
                   (bytes >> 20) / (t2 - t1));
            munmap(p, bytes);
        }
    }
    return 0;
}
