/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * multicore/handler_core - the error handler on another core, with
 * PROCESSES_SCHEDULED.
 * @module windows=0:90,0:90@1 duration=1000
 *
 * CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, core 1).  w (core 0) raises
 * an error: the handler runs on core 1 (GET_MY_PROCESSOR_CORE_ID, on that
 * CPU), preempting spin (5, core 1), which stands still meanwhile, while w
 * goes on running on core 0 (RAISE_APPLICATION_ERROR returns at once).
 */
#define _GNU_SOURCE
#include <sched.h>

#include "../conformance.h"

static PROCESS_ID_TYPE w, spin;
static unsigned long counter;
static int flag_w_on, flag_done;

static void set(int *f) { __atomic_store_n(f, 1, __ATOMIC_RELEASE); }
static int spin_until(int *f)
{
    SYSTEM_TIME_TYPE end = now_ns() + 500 * MS;
    while (!__atomic_load_n(f, __ATOMIC_ACQUIRE))
        if (now_ns() > end)
            return 0;
    return 1;
}
static unsigned long count(void) { return __atomic_load_n(&counter, __ATOMIC_RELAXED); }

static void spin_main(void)
{
    for (;;)
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
}

static void handler(void)
{
    ERROR_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    PROCESSOR_CORE_ID_TYPE core = -1;
    unsigned long c0 = count();
    GET_ERROR_STATUS(&st, &rc);
    TRC("handler: GET_ERROR_STATUS", rc);
    GET_MY_PROCESSOR_CORE_ID(&core, &rc);
    T("handler: core %d, on that CPU: %s", (int)core, sched_getcpu() == core ? "yes" : "no");
    T("handler: w (core 0) runs on meanwhile: %s", spin_until(&flag_w_on) ? "yes" : "no");
    busy_ns(10 * MS);
    T("handler: spin (core 1) stood still: %s", count() == c0 ? "yes" : "no");
    set(&flag_done);
    STOP_SELF();
}

static void w_main(void)
{
    RETURN_CODE_TYPE rc;
    unsigned long c0 = count();
    busy_ns(10 * MS);
    T("w: spin runs on core 1: %s", count() != c0 ? "yes" : "no");
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "x", 1, &rc);
    set(&flag_w_on);
    spin_until(&flag_done);
    TRC("w: RAISE_APPLICATION_ERROR returned", rc);
    c0 = count();
    busy_ns(10 * MS);
    T("w: spin runs again: %s", count() != c0 ? "yes" : "no");
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, 1, &rc);
    TRC("main: CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, core 1)", rc);
    w = mkproc("w", w_main, 10);
    spin = mkproc("spin", spin_main, 5);
    INITIALIZE_PROCESS_CORE_AFFINITY(spin, 1, &rc);
    start(w);
    start(spin);
    go_normal();
    return 0;
}
