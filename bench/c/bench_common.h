/*
 * What the C sides of Pario's benchmarks share: the pauses and the page-cache drop `pario bench io` and
 * `pario bench checkpoint` make at the same points, so both sides are measured alike.
 */
#ifndef PARIO_BENCH_COMMON_H
#define PARIO_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Waits as many seconds as the environment variable says (none when it is unset). */
static void pause_for(const char *variable) {
    const char *seconds = getenv(variable);
    if (seconds && *seconds) usleep((useconds_t) (atof(seconds) * 1e6));
}

/* Drops the page cache, then waits PARIO_BENCH_READ_SETTLE seconds (default 0), as Pario's benchmark does: on a
 * virtual machine whose hypervisor takes back freed memory within seconds, a read right after the drop fills the
 * page cache from the memory the drop freed, cheap only for a program whose own writes put it there. */
static void drop_caches(void) {
    FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
    if (!f) {
        printf("# could not drop the page cache (not root): the read may come from memory\n");
    } else {
        fputs("3", f);
        fclose(f);
    }
    pause_for("PARIO_BENCH_READ_SETTLE");
}

#endif
