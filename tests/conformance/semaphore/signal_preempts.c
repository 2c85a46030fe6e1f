/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * semaphore/signal_preempts - SIGNAL_SEMAPHORE that releases a higher-priority
 * waiter lets it run before SIGNAL_SEMAPHORE returns; releasing a
 * lower-priority waiter does not preempt the caller.  A signal without waiter
 * increments the value.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, hi, lo;
static SEMAPHORE_ID_TYPE s;

static void hi_main(void)
{
    RETURN_CODE_TYPE rc;
    WAIT_SEMAPHORE(s, INFINITE_TIME_VALUE, &rc);
    TRC("hi: WAIT_SEMAPHORE returned", rc);
    STOP_SELF();
}

static void lo_main(void)
{
    RETURN_CODE_TYPE rc;
    WAIT_SEMAPHORE(s, INFINITE_TIME_VALUE, &rc);
    TRC("lo: WAIT_SEMAPHORE returned", rc);
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    SEMAPHORE_STATUS_TYPE st;
    TIMED_WAIT(20 * MS, &rc); /* lets lo queue (hi queued before ctl ran) */
    GET_SEMAPHORE_STATUS(s, &st, &rc);
    T("ctl: value=%d waiting=%d", (int)st.CURRENT_VALUE, (int)st.WAITING_PROCESSES);
    T("ctl: SIGNAL_SEMAPHORE (releases hi, 30)");
    SIGNAL_SEMAPHORE(s, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE returned", rc);
    T("ctl: SIGNAL_SEMAPHORE (releases lo, 10)");
    SIGNAL_SEMAPHORE(s, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE returned", rc);
    T("ctl: lo is %s", state_name(state_of(lo)));
    SIGNAL_SEMAPHORE(s, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE without waiter", rc);
    GET_SEMAPHORE_STATUS(s, &st, &rc);
    T("ctl: value=%d waiting=%d", (int)st.CURRENT_VALUE, (int)st.WAITING_PROCESSES);
    T("ctl: TIMED_WAIT(20ms)");
    TIMED_WAIT(20 * MS, &rc);
    end();
}

int main(void)
{
    s = mksem("s", 0, 5, PRIORITY);
    hi = mkproc("hi", hi_main, 30);
    ctl = mkproc("ctl", ctl_main, 20);
    lo = mkproc("lo", lo_main, 10);
    start(hi);
    start(ctl);
    start(lo);
    go_normal();
    return 1;
}
