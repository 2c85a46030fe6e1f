/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Shared by the test partitions: checks, from the partition's own clock, that it only runs
 * inside its windows. Arguments: NAME MAJOR_FRAME_NS START:DURATION[,START:DURATION...] */
#ifndef WINDOW_CHECK_H
#define WINDOW_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <ARINC653.h>

#define MAX_WINDOWS 16

struct window_check {
    const char *name;
    long long frame;
    int n;
    long long start[MAX_WINDOWS], dur[MAX_WINDOWS];
};

static inline void wc_parse(struct window_check *wc, int argc, char **argv)
{
    memset(wc, 0, sizeof *wc);
    if (argc < 4) {
        fprintf(stderr, "usage: %s NAME MAJOR_FRAME_NS START:DUR[,...]\n", argv[0]);
        exit(2);
    }
    wc->name = argv[1];
    wc->frame = atoll(argv[2]);
    char *list = strdup(argv[3]);
    for (char *tok = strtok(list, ","); tok && wc->n < MAX_WINDOWS; tok = strtok(NULL, ",")) {
        wc->start[wc->n] = atoll(tok);
        char *colon = strchr(tok, ':');
        wc->dur[wc->n] = colon ? atoll(colon + 1) : 0;
        wc->n++;
    }
}

/* How far (ns) instant t lies outside every window; 0 when inside one. */
static inline long long wc_outside(const struct window_check *wc, long long t)
{
    long long off = ((t % wc->frame) + wc->frame) % wc->frame;
    long long best = -1;
    for (int i = 0; i < wc->n; i++) {
        long long s = wc->start[i], e = s + wc->dur[i];
        if (off >= s && off < e)
            return 0;
        /* distance after the end of window i (wrapping), and before its start */
        long long after = ((off - e) % wc->frame + wc->frame) % wc->frame;
        long long before = ((s - off) % wc->frame + wc->frame) % wc->frame;
        long long d = after < before ? after : before;
        if (best < 0 || d < best)
            best = d;
    }
    return best < 0 ? 0 : best;
}

/* When set, spinners yield the CPU every 64 samples, so that several spinners of one
 * partition at the same real-time priority all get to run. */
static int wc_yield;

/* Spins forever sampling the APEX clock; prints a CHECK line about every 200 ms of its own
 * running time. `role` names the thread or process doing the sampling. */
static inline void wc_spin(const struct window_check *wc, const char *role)
{
    RETURN_CODE_TYPE rc;
    long long samples = 0, outside = 0, worst = 0, last_print = 0, first_bad = -1;
    for (;;) {
        SYSTEM_TIME_TYPE t;
        GET_TIME(&t, &rc);
        samples++;
        if (wc_yield && (samples & 63) == 0)
            sched_yield();
        long long d = wc_outside(wc, t);
        if (d > 0) {
            if (first_bad < 0)
                first_bad = t;
            outside++;
            if (d > worst)
                worst = d;
        }
        if (t - last_print > 200000000LL) {
            last_print = t;
            printf("CHECK %s %s samples=%lld outside=%lld worst_ns=%lld first_outside_ns=%lld\n",
                   wc->name, role, samples, outside, worst, first_bad);
            fflush(stdout);
        }
    }
}
#endif
