/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A peer that floods a neighbour's port thread with futex wake-ups, on another core at the
 * same time (crates/cli/tests/isolation.rs, a_peer_on_another_core_cannot_flood_a_port_thread).
 * Argument: MODE.
 *
 * MODE flood: port OUT (queuing source). One process finds its writable mapping of the
 *   channel's data area (/proc/self/maps, "partita-queue-") and calls FUTEX_WAKE on the
 *   channel's `head` word in a loop, without ever sending; prints "FLOODING addr=<a>".
 * MODE spin: port OUT. One process spins: the same load on its core, no wake-up.
 * MODE victim: port IN (queuing destination). A process waits in RECEIVE_QUEUING_MESSAGE for
 *   good (so the runtime's port thread watches the channel); a periodic process computes for
 *   8 ms of every 10 ms window. Every 50 periods it prints "PORTS cpu_us=<CPU time of the
 *   runtime's port thread> periods=<n>" (from /proc/self/task/<tid>/schedstat of the thread
 *   named apex-ports). */
#define _GNU_SOURCE
#include "process.h"
#include <dirent.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static QUEUING_PORT_ID_TYPE port;

static void flood(void)
{
    volatile uint32_t *area = own_mapping("partita-queue-", "-read", "rw-s");
    if (!area) {
        printf("ERROR no writable queue area\n");
        fflush(stdout);
        return;
    }
    printf("FLOODING addr=%p\n", (void *)area);
    fflush(stdout);
    /* Header: magic u64, then head u32 at offset 8. */
    for (;;)
        syscall(SYS_futex, (uint32_t *)(area + 2), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void spin(void)
{
    for (;;)
        for (volatile int i = 0; i < 1000; i++)
            ;
}

/* CPU time of the runtime's port thread, in µs (-1: not found). */
static long port_thread_cpu_us(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    long us = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        char p[320], comm[64] = {0};
        snprintf(p, sizeof p, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
        if (strncmp(comm, "apex-ports", 10) != 0)
            continue;
        snprintf(p, sizeof p, "/proc/self/task/%s/schedstat", e->d_name);
        f = fopen(p, "r");
        unsigned long long ns = 0;
        if (f && fscanf(f, "%llu", &ns) == 1)
            us = (long)(ns / 1000);
        if (f)
            fclose(f);
    }
    closedir(d);
    return us;
}

static void receive(void)
{
    APEX_BYTE m[16];
    MESSAGE_SIZE_TYPE len;
    RETURN_CODE_TYPE rc;
    for (;;) {
        RECEIVE_QUEUING_MESSAGE(port, INFINITE_TIME_VALUE, m, &len, &rc);
        if (rc != NO_ERROR && rc != TIMED_OUT)
            printf("ERROR receive %d\n", (int)rc);
    }
}

static void work(void)
{
    RETURN_CODE_TYPE rc;
    SYSTEM_TIME_TYPE t0, t;
    for (int n = 1;; n++) {
        GET_TIME(&t0, &rc);
        do {
            for (volatile int i = 0; i < 100; i++)
                ;
            GET_TIME(&t, &rc);
        } while (t - t0 < 8000000);
        if (n % 50 == 0) {
            printf("PORTS cpu_us=%ld periods=%d\n", port_thread_cpu_us(), n);
            fflush(stdout);
        }
        PERIODIC_WAIT(&rc);
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE st;
    GET_PARTITION_STATUS(&st, &rc);
    const char *mode = argc > 1 ? argv[1] : "victim";
    int victim = strcmp(mode, "victim") == 0;
    CREATE_QUEUING_PORT(nm(victim ? "IN" : "OUT"), 16, 8, victim ? DESTINATION : SOURCE, FIFO,
                        &port, &rc);
    if (rc != NO_ERROR)
        printf("ERROR create port %d\n", (int)rc);
    if (victim) {
        start_process("receive", receive, 10, INFINITE_TIME_VALUE);
        start_process("work", work, 5, st.PERIOD);
    } else {
        start_process(mode, strcmp(mode, "flood") == 0 ? flood : spin, 10, INFINITE_TIME_VALUE);
    }
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
