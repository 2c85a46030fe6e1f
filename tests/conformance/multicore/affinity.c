/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * multicore/affinity - a partition with windows on two processor cores.
 * @module windows=0:90,0:90@1 duration=1000
 *
 * The partition's cores 0 and 1 are host CPUs 0 and 1 (the cores of its
 * windows), so a thread of core k must run on CPU k (sched_getcpu).
 *
 * a (10) and d (20, waits on semaphore s) are on core 0; b (10) and c (5)
 * on core 1 (INITIALIZE_PROCESS_CORE_AFFINITY).  The trace lines are ordered
 * by causality only: a line printed on one core is printed before a flag
 * the other core waits for is set.
 *  1. a and b compute at the same time (one per core).
 *  2. a suspends itself (core 0 idles); b starts c: c does not run while b
 *     computes although core 0 is idle; c runs on core 1 only when b waits.
 *  3. b resumes a, which computes on core 0; b's SIGNAL_SEMAPHORE readies d
 *     on core 0: d preempts a there at once (a is READY while d runs).
 */
#define _GNU_SOURCE
#include <sched.h>

#include "../conformance.h"

static PROCESS_ID_TYPE a, b, c, d;
static SEMAPHORE_ID_TYPE s, back;
static int flag_a_started, flag_b_saw_a, flag_c_ran, flag_a_busy, flag_d_ran, flag_b_told,
    flag_a_done;

static void set(int *f) { __atomic_store_n(f, 1, __ATOMIC_RELEASE); }
static int get(int *f) { return __atomic_load_n(f, __ATOMIC_ACQUIRE); }

/* Spins (no APEX call) until *f is set, for at most `ms`; returns whether it was set. */
static int spin_until(int *f, int ms)
{
    SYSTEM_TIME_TYPE end = now_ns() + ms * MS;
    while (!get(f))
        if (now_ns() > end)
            return 0;
    return 1;
}

static const char *yesno(int v) { return v ? "yes" : "no"; }

/* "core <id>, on its CPU: yes" for the caller. */
static void where(const char *who)
{
    PROCESSOR_CORE_ID_TYPE core = -1;
    RETURN_CODE_TYPE rc;
    GET_MY_PROCESSOR_CORE_ID(&core, &rc);
    T("%s: GET_MY_PROCESSOR_CORE_ID -> %s, core %d, running on that CPU: %s", who,
      rc_name(rc), (int)core, yesno(sched_getcpu() == core));
}

static void a_main(void)
{
    RETURN_CODE_TYPE rc;
    where("a");
    set(&flag_a_started);
    /* 1. compute until b (core 1) has seen us computing. */
    int seen = spin_until(&flag_b_saw_a, 500);
    (void)seen;
    /* 2. leave core 0 idle. */
    SUSPEND_SELF(INFINITE_TIME_VALUE, &rc);
    /* 3. resumed by b: compute until d has run (it preempts us on core 0). */
    set(&flag_a_busy);
    int preempted = spin_until(&flag_d_ran, 500);
    spin_until(&flag_b_told, 500);
    T("a: d ran during a's computation: %s", yesno(preempted));
    set(&flag_a_done);
    STOP_SELF();
}

static void b_main(void)
{
    RETURN_CODE_TYPE rc;
    spin_until(&flag_a_started, 500);
    where("b");
    /* 1. a computes on core 0 while we compute on core 1. */
    busy_ns(5 * MS);
    T("b: a computes on core 0 at the same time: %s", yesno(state_of(a) == RUNNING));
    set(&flag_b_saw_a);
    /* 2. wait until a has suspended itself: core 0 is idle. */
    SYSTEM_TIME_TYPE until = now_ns() + 500 * MS;
    while (state_of(a) != WAITING && now_ns() < until) {
    }
    T("b: a is %s", state_name(state_of(a)));
    START(c, &rc);
    TRC("b: START(c) (lower, core 1)", rc);
    busy_ns(30 * MS);
    T("b: c ran while b computed (core 0 idle): %s", yesno(get(&flag_c_ran)));
    T("b: c is %s", state_name(state_of(c)));
    T("b: WAIT_SEMAPHORE(back)");
    WAIT_SEMAPHORE(back, INFINITE_TIME_VALUE, &rc);
    TRC("b: WAIT_SEMAPHORE(back) returned", rc);
    /* 3. */
    RESUME(a, &rc);
    TRC("b: RESUME(a) (core 0)", rc);
    spin_until(&flag_a_busy, 500);
    T("b: a computes: %s", yesno(state_of(a) == RUNNING));
    SIGNAL_SEMAPHORE(s, &rc);
    int d_ran = spin_until(&flag_d_ran, 500);
    TRC("b: SIGNAL_SEMAPHORE(s) (readies d on core 0)", rc);
    T("b: d ran: %s", yesno(d_ran));
    set(&flag_b_told);
    spin_until(&flag_a_done, 500);
    end();
}

static void c_main(void)
{
    RETURN_CODE_TYPE rc;
    set(&flag_c_ran);
    where("c");
    T("c: b is %s", state_name(state_of(b)));
    SIGNAL_SEMAPHORE(back, &rc);
    TRC("c: SIGNAL_SEMAPHORE(back) returned", rc);
    STOP_SELF();
}

static void d_main(void)
{
    RETURN_CODE_TYPE rc;
    WAIT_SEMAPHORE(s, INFINITE_TIME_VALUE, &rc);
    where("d");
    T("d: a (same core) is %s, at priority %d", state_name(state_of(a)), (int)prio_of(a));
    set(&flag_d_ran);
    STOP_SELF();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE ps;
    GET_PARTITION_STATUS(&ps, &rc);
    T("main: NUM_ASSIGNED_CORES %d", (int)ps.NUM_ASSIGNED_CORES);
    where("main");
    a = mkproc("a", a_main, 10);
    b = mkproc("b", b_main, 10);
    c = mkproc("c", c_main, 5);
    d = mkproc("d", d_main, 20);
    s = mksem("s", 0, 1, FIFO);
    back = mksem("back", 0, 1, FIFO);
    INITIALIZE_PROCESS_CORE_AFFINITY(b, 1, &rc);
    TRC("main: INITIALIZE_PROCESS_CORE_AFFINITY(b, 1)", rc);
    INITIALIZE_PROCESS_CORE_AFFINITY(c, 1, &rc);
    TRC("main: INITIALIZE_PROCESS_CORE_AFFINITY(c, 1)", rc);
    INITIALIZE_PROCESS_CORE_AFFINITY(d, CORE_AFFINITY_NO_PREFERENCE, &rc);
    TRC("main: INITIALIZE_PROCESS_CORE_AFFINITY(d, NO_PREFERENCE)", rc);
    INITIALIZE_PROCESS_CORE_AFFINITY(a, 2, &rc);
    TRC("main: INITIALIZE_PROCESS_CORE_AFFINITY(a, 2) (no such core)", rc);
    INITIALIZE_PROCESS_CORE_AFFINITY(a, -7, &rc);
    TRC("main: INITIALIZE_PROCESS_CORE_AFFINITY(a, -7)", rc);
    start(a);
    start(b);
    start(d);
    go_normal();
    return 0;
}
