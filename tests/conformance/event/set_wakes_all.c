/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * event/set_wakes_all - SET_EVENT readies every waiter at once; they run by
 * priority (each above the setter, so before SET_EVENT returns).  While UP,
 * WAIT_EVENT returns at once; RESET_EVENT brings it DOWN: a zero time-out then
 * gives NOT_AVAILABLE and a 30 ms one TIMED_OUT.
 */
#include "../conformance.h"

static EVENT_ID_TYPE e;

static void waiter(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE me;
    PROCESS_STATUS_TYPE st;
    GET_MY_ID(&me, &rc);
    GET_PROCESS_STATUS(me, &st, &rc);
    T("%.30s: WAIT_EVENT", st.ATTRIBUTES.NAME);
    WAIT_EVENT(e, INFINITE_TIME_VALUE, &rc);
    T("%.30s: WAIT_EVENT returned %s", st.ATTRIBUTES.NAME, rc_name(rc));
    STOP_SELF();
}

static void show(void)
{
    RETURN_CODE_TYPE rc;
    EVENT_STATUS_TYPE st;
    GET_EVENT_STATUS(e, &st, &rc);
    T("ctl: GET_EVENT_STATUS -> %s %s waiting=%d", rc_name(rc),
      st.EVENT_STATE == UP ? "UP" : "DOWN", (int)st.WAITING_PROCESSES);
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    SYSTEM_TIME_TYPE t0;
    show();
    T("ctl: SET_EVENT");
    SET_EVENT(e, &rc);
    TRC("ctl: SET_EVENT returned", rc);
    show();
    WAIT_EVENT(e, 0, &rc);
    TRC("ctl: WAIT_EVENT(0) while UP", rc);
    WAIT_EVENT(e, INFINITE_TIME_VALUE, &rc);
    TRC("ctl: WAIT_EVENT(INFINITE) while UP", rc);
    RESET_EVENT(e, &rc);
    TRC("ctl: RESET_EVENT", rc);
    show();
    WAIT_EVENT(e, 0, &rc);
    TRC("ctl: WAIT_EVENT(0) while DOWN", rc);
    t0 = now_ns();
    WAIT_EVENT(e, 30 * MS, &rc);
    TRC("ctl: WAIT_EVENT(30ms) while DOWN", rc);
    T("ctl: waited at least 30ms: %s", now_ns() - t0 >= 30 * MS ? "yes" : "no");
    show();
    end();
}

int main(void)
{
    e = mkevent("e");
    start(mkproc("w10", waiter, 10));
    start(mkproc("w30", waiter, 30));
    start(mkproc("w20", waiter, 20));
    start(mkproc("ctl", ctl_main, 5));
    go_normal();
    return 1;
}
