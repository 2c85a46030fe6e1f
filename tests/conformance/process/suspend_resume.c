/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * process/suspend_resume - SUSPEND of a process waiting on an event, and the
 * order of SET_EVENT and RESUME; SUSPEND_SELF with a time-out and RESUME.
 *
 * w (30) waits on event e1; ctl (20) suspends it, sets e1 (w stays WAITING:
 * still suspended), then resumes it (w runs at once).  w waits on e2; ctl
 * suspends it and resumes it while e2 is still DOWN (w stays WAITING), then
 * sets e2 (w runs at once).  w suspends itself for 30 ms and ctl resumes it
 * (NO_ERROR); w suspends itself for 30 ms again (TIMED_OUT), then
 * indefinitely; ctl resumes it.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, w;
static EVENT_ID_TYPE e1, e2;
static SEMAPHORE_ID_TYPE done;

static void w_main(void)
{
    RETURN_CODE_TYPE rc;
    T("w: WAIT_EVENT(e1)");
    WAIT_EVENT(e1, INFINITE_TIME_VALUE, &rc);
    TRC("w: WAIT_EVENT(e1) returned", rc);
    T("w: WAIT_EVENT(e2)");
    WAIT_EVENT(e2, INFINITE_TIME_VALUE, &rc);
    TRC("w: WAIT_EVENT(e2) returned", rc);
    T("w: SUSPEND_SELF(30ms)");
    SUSPEND_SELF(30 * MS, &rc);
    TRC("w: SUSPEND_SELF(30ms) returned", rc);
    SYSTEM_TIME_TYPE t0 = now_ns();
    T("w: SUSPEND_SELF(30ms) again");
    SUSPEND_SELF(30 * MS, &rc);
    TRC("w: SUSPEND_SELF(30ms) returned", rc);
    T("w: waited at least 30ms: %s", now_ns() - t0 >= 30 * MS ? "yes" : "no");
    SIGNAL_SEMAPHORE(done, &rc);
    T("w: SUSPEND_SELF(INFINITE)");
    SUSPEND_SELF(INFINITE_TIME_VALUE, &rc);
    TRC("w: SUSPEND_SELF(INFINITE) returned", rc);
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    SUSPEND(w, &rc);
    TRC("ctl: SUSPEND(w) while it waits on e1", rc);
    SUSPEND(w, &rc);
    TRC("ctl: SUSPEND(w) again", rc);
    T("ctl: w is %s", state_name(state_of(w)));
    SET_EVENT(e1, &rc);
    TRC("ctl: SET_EVENT(e1)", rc);
    T("ctl: w is %s", state_name(state_of(w)));
    T("ctl: RESUME(w)");
    RESUME(w, &rc);
    TRC("ctl: RESUME(w) returned", rc);
    SUSPEND(w, &rc);
    TRC("ctl: SUSPEND(w) while it waits on e2", rc);
    RESUME(w, &rc);
    TRC("ctl: RESUME(w) while e2 is DOWN", rc);
    T("ctl: w is %s", state_name(state_of(w)));
    T("ctl: SET_EVENT(e2)");
    SET_EVENT(e2, &rc);
    TRC("ctl: SET_EVENT(e2) returned", rc);
    T("ctl: RESUME(w) while it suspends itself with a time-out");
    RESUME(w, &rc);
    TRC("ctl: RESUME(w) returned", rc);
    WAIT_SEMAPHORE(done, INFINITE_TIME_VALUE, &rc);
    TRC("ctl: WAIT_SEMAPHORE(done)", rc);
    T("ctl: w is %s", state_name(state_of(w)));
    RESUME(w, &rc);
    TRC("ctl: RESUME(w) returned", rc);
    RESUME(w, &rc);
    TRC("ctl: RESUME(dormant w)", rc);
    SUSPEND(w, &rc);
    TRC("ctl: SUSPEND(dormant w)", rc);
    end();
}

int main(void)
{
    e1 = mkevent("e1");
    e2 = mkevent("e2");
    done = mksem("done", 0, 1, FIFO);
    w = mkproc("w", w_main, 30);
    ctl = mkproc("ctl", ctl_main, 20);
    start(w);
    start(ctl);
    go_normal();
    return 1;
}
