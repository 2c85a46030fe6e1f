/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A general-purpose test program (plain C, no APEX): spins reading CLOCK_MONOTONIC and
 * reports every stretch of time it ran without interruption as `RUN <first_ns> <last_ns>`
 * (two consecutive readings more than GAP_NS apart end a stretch). Lines are written in
 * batches, at most every 20 ms. Usage: gp_spinner [GAP_NS]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
    uint64_t gap = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000;
    static char buf[16384];
    size_t len = 0;
    uint64_t first = now_ns(), last = first, flushed = first;
    printf("SPINNER gap %llu ns\n", (unsigned long long)gap);
    fflush(stdout);
    for (;;) {
        uint64_t n = now_ns();
        if (n - last > gap) {
            len += (size_t)snprintf(buf + len, sizeof buf - len, "RUN %llu %llu\n",
                                    (unsigned long long)first, (unsigned long long)last);
            first = n;
            if (len > sizeof buf - 128 || n - flushed > 20000000u) {
                ssize_t w = write(1, buf, len);
                (void)w;
                len = 0;
                flushed = n;
                n = now_ns();
                first = n;
            }
        }
        last = n;
    }
}
