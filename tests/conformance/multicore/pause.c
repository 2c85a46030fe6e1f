/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * multicore/pause - the error handler's concurrency control on two cores.
 * @module windows=0:90,0:90@1 duration=1000
 *
 * spin (5, core 1) counts without end.  With PROCESSES_PAUSE the processes
 * of the other cores do not run while the error handler (core 0) runs: the
 * handler sees spin's counter stand still for 20 ms.  A STOP of spin (in the
 * middle of its code) makes it never run again, even with core 1 idle.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE w, spin;
static volatile unsigned long counter;

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
    GET_ERROR_STATUS(&st, &rc);
    TRC("handler: GET_ERROR_STATUS", rc);
    unsigned long c0 = count();
    busy_ns(20 * MS);
    T("handler: spin (core 1) paused while the handler ran: %s", count() == c0 ? "yes" : "no");
    STOP_SELF();
}

static void w_main(void)
{
    RETURN_CODE_TYPE rc;
    unsigned long c0 = count();
    busy_ns(10 * MS);
    T("w: spin runs on core 1: %s", count() != c0 ? "yes" : "no");
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "pause", 5, &rc);
    TRC("w: RAISE_APPLICATION_ERROR returned", rc);
    c0 = count();
    busy_ns(10 * MS);
    T("w: spin runs again: %s", count() != c0 ? "yes" : "no");
    STOP(spin, &rc);
    TRC("w: STOP(spin)", rc);
    c0 = count();
    busy_ns(20 * MS);
    T("w: spin stopped (core 1 idle): %s", count() == c0 ? "yes" : "no");
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_PAUSE, 0, &rc);
    TRC("main: CONFIGURE_ERROR_HANDLER(PROCESSES_PAUSE, core 0)", rc);
    w = mkproc("w", w_main, 10);
    spin = mkproc("spin", spin_main, 5);
    INITIALIZE_PROCESS_CORE_AFFINITY(spin, 1, &rc);
    start(w);
    start(spin);
    go_normal();
    return 0;
}
