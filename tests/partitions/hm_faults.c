/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Health-monitor test partition.  Usage: hm_faults MODE NAME [ARG...]
 *
 * Every mode prints "BOOT <NAME> start_condition=<n>" at start.  Modes:
 *   steady OFFSET_NS FRAME_NS  periodic process: "LATE <NAME> n=<activations> max_ns=<worst>"
 *                              (how late each activation starts after its window start)
 *   fpe | segv | ill | stack | apperr   an APEX process (no error handler) divides by zero,
 *                              writes through NULL, executes an illegal instruction, overflows
 *                              its stack, or raises an APPLICATION_ERROR (runtime-escalated)
 *   handled                    like fpe, with an error handler that prints "HANDLED <NAME> code=<c>"
 *   deadline                   a process with a 5 ms HARD deadline spins 20 ms
 *   exit                       a process calls _exit(3): the partition process dies
 *   segv-main                  the main process writes through NULL before NORMAL: it dies
 *   sigsys                     installs a seccomp filter that kills the process on getppid,
 *                              then calls getppid: killed by SIGSYS
 *   oom                        allocates and touches memory until the memory cgroup kills it
 *   system TARGET_ID           system partition: reads the logbook, reads TARGET's status,
 *                              sets it IDLE, then COLD_START, and reads its status again
 *   intruder TARGET_ID         a normal partition calling the system-partition services
 *   overrun                    a process spends its time in system calls that cannot stop halfway:
 *                              it maps 128 MiB with MAP_POPULATE (the kernel zeroes every page
 *                              before returning; a stop signal or the freezer waits for the
 *                              return) and unmaps it, forever ("OVERRUN <NAME> populating";
 *                              "ERROR mmap ..." and exit 1 if a mapping fails). Held at a
 *                              window end, it keeps the CPU until the call returns: a window
 *                              overrun of up to the call's duration, longer than any freeze lead
 *   flood                      writes 5000 forged partition-error records on its report channel
 *                              (fd 4) in its second activation, then one of an unknown record
 *                              version: "FLOODED <n>"
 * The fault modes fault in their second activation, so the partition reaches NORMAL first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <errno.h>
#include <ARINC653.h>

static const char *mode, *name;
static PARTITION_STATUS_TYPE st;
static long long offset_ns, frame_ns;
static int target;

static volatile int zero = 0, seven = 7;

static int recurse(int n)
{
    volatile char pad[4096];
    pad[0] = (char)n;
    if (n == -1 - zero) /* never true, hides the recursion from the compiler */
        return 0;
    return recurse(n + 1) + pad[0];
}

static void spin_ms(long ms)
{
    RETURN_CODE_TYPE rc;
    SYSTEM_TIME_TYPE t0, t;
    GET_TIME(&t0, &rc);
    do
        GET_TIME(&t, &rc);
    while (t - t0 < ms * 1000000LL);
}

static void die_by_seccomp(void)
{
    /* Every partition runs under the platform's seccomp filter, which traps a
     * forbidden call with SIGSYS (the APEX runtime turns that into an
     * ILLEGAL_REQUEST raised inside the partition).  Restoring the default
     * action makes the process die of SIGSYS instead, as a program without
     * the runtime would: the manager sees the death. */
    signal(SIGSYS, SIG_DFL);
    syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
    printf("SECCOMP did not kill\n");
}

static void print_status(const char *what, int id)
{
    A_PARTITION_STATUS_TYPE s;
    RETURN_CODE_TYPE rc;
    RETURN_CODE_TYPE trc;
    SYSTEM_TIME_TYPE t0, t1;
    GET_TIME(&t0, &trc);
    GET_A_PARTITION_STATUS(id, &s, &rc);
    GET_TIME(&t1, &trc);
    printf("RTT %s %lld ns\n", what, (long long)(t1 - t0));
    if (rc == NO_ERROR)
        printf("STATUS %s id=%d mode=%d start_condition=%d restarts=%u hm_events=%lld "
               "has_process=%u system=%u period=%lld\n",
               what, (int)s.IDENTIFIER, (int)s.OPERATING_MODE, (int)s.START_CONDITION,
               s.RESTARTS, (long long)s.HM_EVENTS, s.HAS_PROCESS, s.SYSTEM_PARTITION,
               (long long)s.PERIOD);
    else
        printf("STATUS %s rc=%d\n", what, (int)rc);
}

static void system_step(int n)
{
    RETURN_CODE_TYPE rc;
    if (n == 4) {
        HM_LOG_STATUS_TYPE ls;
        GET_HM_LOG_STATUS(&ls, &rc);
        printf("LOGSTATUS rc=%d total=%lld first=%lld kept=%lld capacity=%lld\n", (int)rc,
               (long long)ls.TOTAL, (long long)ls.FIRST_INDEX, (long long)ls.KEPT,
               (long long)ls.CAPACITY);
        for (long long i = ls.FIRST_INDEX; rc == NO_ERROR && i < ls.TOTAL; i++) {
            HM_LOG_ENTRY_TYPE e;
            RETURN_CODE_TYPE r2;
            READ_HM_LOG(i, &e, &r2);
            printf("LOGENTRY rc=%d index=%lld partition=%d state=%u code=%d level=%u action=%u "
                   "msg=%.*s\n",
                   (int)r2, (long long)e.INDEX, (int)e.PARTITION_ID, e.SYSTEM_STATE,
                   (int)e.ERROR_CODE, e.ERROR_LEVEL, e.ACTION, (int)e.LENGTH,
                   (const char *)e.MESSAGE);
        }
        HM_LOG_ENTRY_TYPE e;
        READ_HM_LOG(ls.TOTAL + 1000, &e, &rc);
        printf("LOGBEYOND rc=%d\n", (int)rc);
        print_status("before", target);
        print_status("unknown", 9999);
        SET_A_PARTITION_MODE(target, IDLE, &rc);
        printf("SETMODE IDLE rc=%d\n", (int)rc);
    } else if (n == 6) {
        print_status("idle", target);
        SET_A_PARTITION_MODE(target, NORMAL, &rc);
        printf("SETMODE NORMAL rc=%d\n", (int)rc);
        SET_A_PARTITION_MODE(target, COLD_START, &rc);
        printf("SETMODE COLD_START rc=%d\n", (int)rc);
    } else if (n == 9) {
        print_status("after", target);
    }
    fflush(stdout);
}

static void intruder_step(int n)
{
    RETURN_CODE_TYPE rc;
    if (n != 3)
        return;
    A_PARTITION_STATUS_TYPE s;
    GET_A_PARTITION_STATUS(target, &s, &rc);
    printf("INTRUDER GET_A_PARTITION_STATUS rc=%d\n", (int)rc);
    SET_A_PARTITION_MODE(target, IDLE, &rc);
    printf("INTRUDER SET_A_PARTITION_MODE rc=%d\n", (int)rc);
    HM_LOG_STATUS_TYPE ls;
    GET_HM_LOG_STATUS(&ls, &rc);
    printf("INTRUDER GET_HM_LOG_STATUS rc=%d\n", (int)rc);
    fflush(stdout);
}

static void handler(void)
{
    ERROR_STATUS_TYPE es;
    RETURN_CODE_TYPE rc;
    for (;;) {
        GET_ERROR_STATUS(&es, &rc);
        if (rc != NO_ERROR)
            break;
        printf("HANDLED %s code=%d\n", name, (int)es.ERROR_CODE);
        fflush(stdout);
    }
    STOP_SELF();
}

/* The overrun mode: long system calls that a stop waits for (see the usage). */
static void populate_forever(void)
{
    const size_t len = (size_t)128 << 20;
    printf("OVERRUN %s populating\n", name);
    fflush(stdout);
    for (;;) {
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED) {
            printf("ERROR mmap %zu bytes: %s\n", len, strerror(errno));
            fflush(stdout);
            _exit(1);
        }
        if (munmap(p, len) != 0) {
            printf("ERROR munmap: %s\n", strerror(errno));
            fflush(stdout);
            _exit(1);
        }
    }
}

static void worker(void)
{
    RETURN_CODE_TYPE rc;
    long long worst = 0;
    for (int n = 1;; n++) {
        PERIODIC_WAIT(&rc);
        if (!strcmp(mode, "steady")) {
            SYSTEM_TIME_TYPE t;
            GET_TIME(&t, &rc);
            long long late = ((t - offset_ns) % frame_ns + frame_ns) % frame_ns;
            if (late > worst)
                worst = late;
            printf("LATE %s n=%d max_ns=%lld\n", name, n, worst);
            fflush(stdout);
            continue;
        }
        if (!strcmp(mode, "system")) {
            system_step(n);
            continue;
        }
        if (!strcmp(mode, "intruder")) {
            intruder_step(n);
            continue;
        }
        if (!strcmp(mode, "overrun"))
            populate_forever();
        if (n < 2)
            continue;
        printf("FAULT %s %s\n", name, mode);
        fflush(stdout);
        if (!strcmp(mode, "fpe") || !strcmp(mode, "handled"))
            printf("%d\n", seven / zero);
        else if (!strcmp(mode, "segv"))
            *(volatile int *)(size_t)zero = 1;
        else if (!strcmp(mode, "ill"))
            __asm__ volatile("ud2");
        else if (!strcmp(mode, "stack"))
            printf("%d\n", recurse(0));
        else if (!strcmp(mode, "apperr")) {
            static char msg[] = "application says no";
            RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE)msg, sizeof msg - 1,
                                    &rc);
        } else if (!strcmp(mode, "deadline"))
            spin_ms(20);
        else if (!strcmp(mode, "exit"))
            _exit(3);
        else if (!strcmp(mode, "sigsys"))
            die_by_seccomp();
        else if (!strcmp(mode, "flood")) {
            /* A partition-error record of partita_abi::report, version 1: u16 version,
             * u16 kind (3), u32 message length, i64 time, i32 reporter (-1: main),
             * u32 ERROR_CODE_TYPE, u64 failed address, then the message. */
            static const char text[] = "forged";
            unsigned char rec[32 + sizeof text - 1];
            unsigned int len = sizeof text - 1;
            int reporter = -1;
            unsigned int code = NUMERIC_ERROR;
            int sent = 0;
            memset(rec, 0, sizeof rec);
            rec[0] = 1;
            rec[2] = 3;
            memcpy(rec + 4, &len, 4);
            memcpy(rec + 16, &reporter, 4);
            memcpy(rec + 20, &code, 4);
            memcpy(rec + 32, text, sizeof text - 1);
            for (int i = 0; i < 5000; i++)
                if (write(4, rec, sizeof rec) == (ssize_t)sizeof rec)
                    sent++;
            /* Then one record of an unknown version: the manager refuses it and ignores
             * the rest of the channel. */
            rec[0] = 9;
            if (write(4, rec, sizeof rec) != (ssize_t)sizeof rec)
                sent = -1;
            printf("FLOODED %d\n", sent);
            fflush(stdout);
            for (;;)
                PERIODIC_WAIT(&rc);
        } else if (!strcmp(mode, "oom")) {
            for (;;) {
                char *p = malloc(1 << 20);
                if (p)
                    memset(p, 1, 1 << 20);
            }
        }
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODE NAME [ARG...]\n", argv[0]);
        return 2;
    }
    mode = argv[1];
    name = argv[2];
    if (argc > 4) {
        offset_ns = atoll(argv[3]);
        frame_ns = atoll(argv[4]);
    }
    if (argc > 3)
        target = atoi(argv[3]);
    GET_PARTITION_STATUS(&st, &rc);
    printf("BOOT %s start_condition=%d\n", name, (int)st.START_CONDITION);
    fflush(stdout);
    if (!strcmp(mode, "segv-main"))
        *(volatile int *)(size_t)zero = 1;
    if (!strcmp(mode, "handled")) {
        CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
        if (rc != NO_ERROR)
            printf("CREATE_ERROR_HANDLER rc=%d\n", (int)rc);
    }
    memset(&a, 0, sizeof a);
    strncpy(a.NAME, "worker", sizeof a.NAME);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)worker;
    a.STACK_SIZE = 256 * 1024;
    a.BASE_PRIORITY = 10;
    a.PERIOD = st.PERIOD;
    a.TIME_CAPACITY = !strcmp(mode, "deadline") ? 5000000 : st.PERIOD;
    a.DEADLINE = !strcmp(mode, "deadline") ? HARD : SOFT;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
