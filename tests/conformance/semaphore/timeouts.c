/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * semaphore/timeouts - WAIT_SEMAPHORE with a time-out returns TIMED_OUT when
 * nobody signals (and other processes run meanwhile); a zero time-out returns
 * NOT_AVAILABLE at once, without letting a lower-priority process run; a
 * waiter signalled before its time-out gets NO_ERROR; a signal after a
 * time-out increments the value.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, lo, w;
static SEMAPHORE_ID_TYPE s;
static volatile int lo_ran;

static void lo_main(void)
{
    lo_ran = 1;
    T("lo: running");
    STOP_SELF();
}

static void w_main(void)
{
    RETURN_CODE_TYPE rc;
    WAIT_SEMAPHORE(s, 50 * MS, &rc);
    TRC("w: WAIT_SEMAPHORE(50ms) returned", rc);
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    SEMAPHORE_STATUS_TYPE st;
    SYSTEM_TIME_TYPE t0;
    start(lo);
    WAIT_SEMAPHORE(s, 0, &rc);
    TRC("ctl: WAIT_SEMAPHORE(0) on 0", rc);
    T("ctl: lo ran meanwhile: %s", lo_ran ? "yes" : "no");
    t0 = now_ns();
    T("ctl: WAIT_SEMAPHORE(30ms)");
    WAIT_SEMAPHORE(s, 30 * MS, &rc);
    TRC("ctl: WAIT_SEMAPHORE(30ms) returned", rc);
    T("ctl: waited at least 30ms: %s", now_ns() - t0 >= 30 * MS ? "yes" : "no");
    GET_SEMAPHORE_STATUS(s, &st, &rc);
    T("ctl: value=%d waiting=%d", (int)st.CURRENT_VALUE, (int)st.WAITING_PROCESSES);
    start(w);
    GET_SEMAPHORE_STATUS(s, &st, &rc);
    T("ctl: value=%d waiting=%d", (int)st.CURRENT_VALUE, (int)st.WAITING_PROCESSES);
    T("ctl: SIGNAL_SEMAPHORE");
    SIGNAL_SEMAPHORE(s, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE returned", rc);
    start(w);
    T("ctl: TIMED_WAIT(80ms)");
    TIMED_WAIT(80 * MS, &rc);
    TRC("ctl: TIMED_WAIT(80ms) returned", rc);
    SIGNAL_SEMAPHORE(s, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE without waiter", rc);
    GET_SEMAPHORE_STATUS(s, &st, &rc);
    T("ctl: value=%d waiting=%d", (int)st.CURRENT_VALUE, (int)st.WAITING_PROCESSES);
    WAIT_SEMAPHORE(s, 0, &rc);
    TRC("ctl: WAIT_SEMAPHORE(0) on 1", rc);
    end();
}

int main(void)
{
    s = mksem("s", 0, 5, FIFO);
    ctl = mkproc("ctl", ctl_main, 20);
    lo = mkproc("lo", lo_main, 10);
    w = mkproc("w", w_main, 30);
    start(ctl);
    go_normal();
    return 1;
}
