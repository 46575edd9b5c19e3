/* Two processes over loopback TCP each send SIZE bytes to the other at the same time, then read what the other
 * sent, ITERATIONS times; rank 0 prints the mean time of an exchange, three times. Connections: shared (one per
 * pair, both directions on it, as the C MPI stacks use) or oneway (one per direction, as Pario uses). Socket
 * buffers of 4 MiB each way, so that the writes complete before the reads begin.
 * Reads block (block, the default) or poll without blocking and yield the core between polls (yield).
 * Build and run: gcc -O2 -o exchange_floor exchange_floor.c && ./exchange_floor 2000 524288 shared|oneway [yield] */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int conn(int lfd, struct sockaddr_in *a, int *s) {
    int c = socket(AF_INET, SOCK_STREAM, 0), one = 1, big = 4 << 20;
    setsockopt(c, SOL_SOCKET, SO_SNDBUF, &big, 4); setsockopt(c, SOL_SOCKET, SO_RCVBUF, &big, 4);
    connect(c, (void *) a, sizeof *a); *s = accept(lfd, 0, 0);
    setsockopt(*s, SOL_SOCKET, SO_SNDBUF, &big, 4); setsockopt(*s, SOL_SOCKET, SO_RCVBUF, &big, 4);
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, 4); setsockopt(*s, IPPROTO_TCP, TCP_NODELAY, &one, 4);
    return c;
}
int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: exchange_floor ITERATIONS SIZE shared|oneway [block|yield]\n"); return 2; }
    int poll = argc > 4 && !strcmp(argv[4], "yield");
    int iters = atoi(argv[1]); long size = atol(argv[2]); int oneway = !strcmp(argv[3], "oneway");
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    bind(lfd, (void *) &a, sizeof a); listen(lfd, 8); getsockname(lfd, (void *) &a, &l);
    int s01, c01 = conn(lfd, &a, &s01), s10 = -1, c10 = -1;
    if (oneway) c10 = conn(lfd, &a, &s10);
    /* rank 0 sends on c01, receives on oneway ? s10 : c01; rank 1 sends on oneway ? c10 : s01, receives on s01 */
    int me = fork() == 0;
    int out = me == 0 ? c01 : (oneway ? c10 : s01), in = me == 0 ? (oneway ? s10 : c01) : s01;
    char *buf = malloc(size), *rb = malloc(size); memset(buf, 1, size);
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (int i = 0; i < iters; i++) {
            for (long off = 0; off < size;) {
                long w = write(out, buf + off, size - off);
                if (w <= 0) { perror("write"); exit(1); }
                off += w;
            }
            for (long off = 0; off < size;) {
                long r = recv(in, rb + off, size - off, poll ? MSG_DONTWAIT : 0);
                if (r < 0 && poll && (errno == EAGAIN || errno == EWOULDBLOCK)) { sched_yield(); continue; }
                if (r <= 0) { perror("read"); exit(1); }
                off += r;
            }
        }
        if (me == 0) printf("%s %ld B both ways at once, reads %s: %.1f us per exchange\n", argv[3], size,
                            poll ? "polling" : "blocking", (now() - t0) * 1e6 / iters);
    }
    if (me == 0) wait(0);
    return 0;
}
