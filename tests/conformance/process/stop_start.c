/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * process/stop_start - STOP of a waiting process removes it from the
 * semaphore queue; a new START runs it from its entry point; STOP of a READY
 * lower-priority process means it never runs.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, w, lo;
static SEMAPHORE_ID_TYPE s;
static int entries;

static void w_main(void)
{
    RETURN_CODE_TYPE rc;
    T("w: entry %d, WAIT_SEMAPHORE(s)", ++entries);
    WAIT_SEMAPHORE(s, INFINITE_TIME_VALUE, &rc);
    TRC("w: WAIT_SEMAPHORE(s) returned", rc);
    STOP_SELF();
}

static void lo_main(void)
{
    T("lo: running (must not happen)");
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    SEMAPHORE_STATUS_TYPE st;
    GET_SEMAPHORE_STATUS(s, &st, &rc);
    T("ctl: s waiting=%d", (int)st.WAITING_PROCESSES);
    STOP(w, &rc);
    TRC("ctl: STOP(w)", rc);
    T("ctl: w is %s", state_name(state_of(w)));
    GET_SEMAPHORE_STATUS(s, &st, &rc);
    T("ctl: s waiting=%d", (int)st.WAITING_PROCESSES);
    STOP(w, &rc);
    TRC("ctl: STOP(dormant w)", rc);
    STOP(ctl, &rc);
    TRC("ctl: STOP(self)", rc);
    T("ctl: START(w)");
    START(w, &rc);
    TRC("ctl: START(w) returned", rc);
    T("ctl: SIGNAL_SEMAPHORE(s)");
    SIGNAL_SEMAPHORE(s, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE(s) returned", rc);
    T("ctl: w is %s", state_name(state_of(w)));
    START(lo, &rc);
    TRC("ctl: START(lo)", rc);
    T("ctl: lo is %s", state_name(state_of(lo)));
    STOP(lo, &rc);
    TRC("ctl: STOP(lo)", rc);
    T("ctl: lo is %s", state_name(state_of(lo)));
    end();
}

int main(void)
{
    s = mksem("s", 0, 10, FIFO);
    w = mkproc("w", w_main, 30);
    ctl = mkproc("ctl", ctl_main, 20);
    lo = mkproc("lo", lo_main, 10);
    start(w);
    start(ctl);
    go_normal();
    return 1;
}
