/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile: raises itself to real-time priority 99 (above the manager's scheduler threads)
 * and spins. Refused on every host: the partition holds no capability and RLIMIT_RTPRIO is at
 * most the runtime's timer priority (0 where the host cannot set it).
 *
 * With six more arguments SIZE REQUEST TID PRIO DONE RESULT (the control block's mapping size and the byte
 * offsets of its raise fields), it first forges two requests to the manager's raise broker,
 * the way the runtime asks for a raise: priority 99 for itself, and priority 5 for a thread
 * that is not its own. Both are refused (and recorded by the health monitor). */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static long off[6];

static int forge(unsigned char *cb, int tid, int prio)
{
    _Atomic uint32_t *request = (_Atomic uint32_t *)(cb + off[1]);
    _Atomic int32_t *rtid = (_Atomic int32_t *)(cb + off[2]);
    _Atomic int32_t *rprio = (_Atomic int32_t *)(cb + off[3]);
    _Atomic uint32_t *done = (_Atomic uint32_t *)(cb + off[4]);
    _Atomic int32_t *result = (_Atomic int32_t *)(cb + off[5]);
    atomic_store(rtid, tid);
    atomic_store(rprio, prio);
    uint32_t seq = atomic_fetch_add(request, 1) + 1;
    syscall(SYS_futex, request, FUTEX_WAKE, 1, NULL, NULL, 0);
    for (int i = 0; i < 2000; i++) {
        uint32_t d = atomic_load(done);
        if (d == seq)
            return atomic_load(result);
        struct timespec ts = {0, 1000000};
        syscall(SYS_futex, done, FUTEX_WAIT, d, &ts, NULL, 0);
    }
    return -1;
}

int main(int argc, char **argv)
{
    /* The suite passes NAME FRAME WINDOWS first; the layout comes last. */
    if (argc >= 10) {
        for (int i = 0; i < 6; i++)
            off[i] = atol(argv[argc - 6 + i]);
        const char *fd = getenv("PARTITA_CONTROL_FD");
        unsigned char *cb = fd ? mmap(NULL, off[0], PROT_READ | PROT_WRITE, MAP_SHARED, atoi(fd), 0)
                               : MAP_FAILED;
        if (cb == MAP_FAILED) {
            printf("RTSPIN no control block: errno %d\n", errno);
        } else {
            printf("RTSPIN broker priority 99 = %d\n", forge(cb, (int)syscall(SYS_gettid), 99));
            printf("RTSPIN broker foreign thread = %d\n", forge(cb, 999999, 5));
        }
        fflush(stdout);
    }
    struct sched_param sp = {.sched_priority = 99};
    int r = sched_setparam(0, &sp);
    printf("RTSPIN sched_setparam(99) = %d errno %d\n", r, r ? errno : 0);
    fflush(stdout);
    for (volatile unsigned long n = 0;; n++) {
    }
}
