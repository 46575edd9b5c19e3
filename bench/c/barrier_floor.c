/* The floor under an 8 B barrier between processes of one host over loopback TCP, without any MPI library: N
 * processes (default 4) joined by TCP connections, each waiting for its messages in epoll, in one of three ways:
 * block (sleep in epoll_wait until a message comes), yield (poll without blocking, sched_yield between polls) or
 * yieldblock (yield for THRESHOLD seconds, then sleep). Barrier algorithms: diss (dissemination), rd (recursive
 * doubling: exchanges between pairs, for a power-of-two N) or star (everyone to rank 0 and back, as Pario's barrier
 * from 3 up to 4 ranks). Connections: shared (one per pair of processes,
 * carrying both directions, as the C stacks use) or oneway (one per direction, as Pario uses: each carries data one
 * way only, so the receiver's TCP answers every small message with an ACK of its own instead of one riding on data
 * going back). Rank 0 prints the mean time of a barrier, three times.
 * Build and run: gcc -O2 -o barrier_floor barrier_floor.c && ./barrier_floor 50000 yield diss [THRESHOLD] [N] [CONNS]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX 16
static int sock[MAX][MAX]; /* sock[i][j]: rank i's end of the connection it sends to rank j on */
static int rsock[MAX][MAX]; /* rsock[i][j]: rank i's end of the connection it receives from rank j on */
static int pending[MAX];   /* messages in from each rank and not yet used */
static int me, n, ep, mode; /* mode: 0 block, 1 yield, 2 yield then block */
static double threshold;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void send_to(int dst) {
    char b = 1;
    if (write(sock[me][dst], &b, 1) != 1) { perror("write"); exit(1); }
}

static void wait_for(int src) {
    double start = now();
    while (pending[src] == 0) {
        struct epoll_event ev[MAX];
        int timeout = mode == 0 || (mode == 2 && now() - start > threshold) ? -1 : 0;
        int m = epoll_wait(ep, ev, MAX, timeout);
        for (int q = 0; q < m; q++) {
            char buf[64];
            int got = read(rsock[me][ev[q].data.u32], buf, sizeof buf);
            if (got > 0) pending[ev[q].data.u32] += got;
        }
        if (m == 0 && timeout == 0) sched_yield();
    }
    pending[src]--;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr,
                "usage: barrier_floor ITERATIONS block|yield|yieldblock [diss|rd|star] [THRESHOLD] [N] "
                "[shared|oneway]\n");
        return 2;
    }
    int iters = atoi(argv[1]);
    mode = !strcmp(argv[2], "block") ? 0 : !strcmp(argv[2], "yield") ? 1 : 2;
    int star = argc > 3 && !strcmp(argv[3], "star");
    int rd = argc > 3 && !strcmp(argv[3], "rd");
    threshold = argc > 4 ? atof(argv[4]) : 100e-6;
    n = argc > 5 ? atoi(argv[5]) : 4;
    int oneway = argc > 6 && !strcmp(argv[6], "oneway");
    if (n < 2 || n > MAX) { fprintf(stderr, "N must be 2 to %d\n", MAX); return 2; }
    if (rd && (n & (n - 1))) { fprintf(stderr, "rd needs a power-of-two N\n"); return 2; }
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (bind(lfd, (void *) &a, sizeof a) || listen(lfd, 64) || getsockname(lfd, (void *) &a, &l)) {
        perror("listen");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        for (int j = oneway ? 0 : i + 1; j < n; j++) {
            if (i == j) continue;
            int c = socket(AF_INET, SOCK_STREAM, 0), one = 1;
            if (connect(c, (void *) &a, sizeof a)) { perror("connect"); return 1; }
            int s = accept(lfd, 0, 0);
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            sock[i][j] = c;
            rsock[j][i] = s;
            if (!oneway) {
                sock[j][i] = s;
                rsock[i][j] = c;
            }
        }
    }
    for (int r = 1; r < n; r++) {
        if (fork() == 0) { me = r; break; }
    }
    ep = epoll_create1(0);
    for (int j = 0; j < n; j++) {
        if (j == me) continue;
        struct epoll_event e = {.events = EPOLLIN, .data.u32 = j};
        epoll_ctl(ep, EPOLL_CTL_ADD, rsock[me][j], &e);
    }
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        for (int it = 0; it < iters; it++) {
            if (star && me == 0) {
                for (int r = 1; r < n; r++) wait_for(r);
                for (int r = 1; r < n; r++) send_to(r);
            } else if (star) {
                send_to(0);
                wait_for(0);
            } else if (rd) {
                for (int k = 1; k < n; k <<= 1) {
                    send_to(me ^ k);
                    wait_for(me ^ k);
                }
            } else {
                for (int k = 1; k < n; k <<= 1) {
                    send_to((me + k) % n);
                    wait_for((me - k + n) % n);
                }
            }
        }
        if (me == 0) printf("%s %s, %d processes, %s connections: %.1f us per barrier\n", argv[2],
                            star ? "star" : rd ? "rd" : "diss", n, oneway ? "oneway" : "shared",
                            (now() - t0) * 1e6 / iters);
    }
    if (me == 0) {
        for (int r = 1; r < n; r++) wait(0);
    }
    return 0;
}
