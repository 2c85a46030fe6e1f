/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * hm/handler - scheduling of the error handler (process-level health
 * monitoring).  The handler is above every process: activated by an error it
 * runs before anything else of its core, even inside a preemption lock, and
 * the failed process goes on only when the handler has stopped itself.
 *  1. w (10) raises an application error: the handler runs before
 *     RAISE_APPLICATION_ERROR returns.
 *  2. the same inside LOCK_PREEMPTION: the handler still preempts.
 *  3. fpe (20) divides by zero: the hardware fault reaches the handler as
 *     NUMERIC_ERROR for fpe, which STOPs it (fpe never continues).
 *  4. late (5) has a 20 ms TIME_CAPACITY and computes 40 ms: the deadline
 *     miss reaches the handler as DEADLINE_MISSED for late, which preempts
 *     late; late completes its computation afterwards.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE w, fpe, late;
static SEMAPHORE_ID_TYPE late_done;
static volatile int zero, num = 100;

static const char *who(PROCESS_ID_TYPE id)
{
    if (id == w) return "w";
    if (id == fpe) return "fpe";
    if (id == late) return "late";
    return "?";
}

static void handler(void)
{
    ERROR_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    for (;;) {
        memset(&st, 0, sizeof st);
        GET_ERROR_STATUS(&st, &rc);
        if (rc != NO_ERROR)
            break;
        T("handler: %s from %s (%s is %s) \"%.*s\"", code_name(st.ERROR_CODE),
          who(st.FAILED_PROCESS_ID), who(st.FAILED_PROCESS_ID),
          state_name(state_of(st.FAILED_PROCESS_ID)),
          st.ERROR_CODE == APPLICATION_ERROR ? (int)st.LENGTH : 0, (const char *)st.MESSAGE);
        if (st.ERROR_CODE == NUMERIC_ERROR) {
            STOP(st.FAILED_PROCESS_ID, &rc);
            TRC("handler: STOP(failed process)", rc);
            T("handler: %s is %s", who(st.FAILED_PROCESS_ID),
              state_name(state_of(st.FAILED_PROCESS_ID)));
        }
    }
    TRC("handler: no more errors", rc);
    STOP_SELF();
}

static void fpe_main(void)
{
    T("fpe: divides by zero");
    int r = num / zero;
    T("fpe: continued after the fault (%d)", r);
    STOP_SELF();
}

static void late_main(void)
{
    RETURN_CODE_TYPE rc;
    T("late: computes 40 ms with a 20 ms time capacity");
    busy_ns(40 * MS);
    T("late: computation over");
    SIGNAL_SEMAPHORE(late_done, &rc);
    STOP_SELF();
}

static void w_main(void)
{
    RETURN_CODE_TYPE rc;
    LOCK_LEVEL_TYPE lvl;
    T("w: RAISE_APPLICATION_ERROR");
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "first", 5, &rc);
    TRC("w: RAISE_APPLICATION_ERROR returned", rc);

    LOCK_PREEMPTION(&lvl, &rc);
    TRC("w: LOCK_PREEMPTION", rc);
    T("w: RAISE_APPLICATION_ERROR with preemption locked");
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "locked", 6, &rc);
    TRC("w: RAISE_APPLICATION_ERROR returned", rc);
    UNLOCK_PREEMPTION(&lvl, &rc);
    TRC("w: UNLOCK_PREEMPTION", rc);

    T("w: START(fpe)");
    START(fpe, &rc);
    TRC("w: START(fpe) returned", rc);
    T("w: fpe is %s", state_name(state_of(fpe)));

    T("w: START(late), then WAIT_SEMAPHORE");
    START(late, &rc);
    WAIT_SEMAPHORE(late_done, INFINITE_TIME_VALUE, &rc);
    TRC("w: WAIT_SEMAPHORE returned", rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
    TRC("main: CREATE_ERROR_HANDLER", rc);
    w = mkproc("w", w_main, 10);
    fpe = mkproc("fpe", fpe_main, 20);
    a = attrs("late", late_main, 5);
    a.TIME_CAPACITY = 20 * MS;
    a.DEADLINE = HARD;
    CREATE_PROCESS(&a, &late, &rc);
    TRC("main: CREATE_PROCESS(late, TIME_CAPACITY 20 ms)", rc);
    late_done = mksem("late_done", 0, 1, FIFO);
    start(w);
    go_normal();
    return 0;
}
