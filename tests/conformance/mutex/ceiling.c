/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * mutex/ceiling - the owner of a mutex runs at its ceiling priority (a
 * process started meanwhile with a priority between the base and the ceiling
 * waits), the lock is recursive, and the last RELEASE_MUTEX restores the base
 * priority (the waiting process then runs at once).
 */
#include "../conformance.h"

static PROCESS_ID_TYPE p, q;
static MUTEX_ID_TYPE m;

static void q_main(void)
{
    T("q: running, p priority %d", (int)prio_of(p));
    STOP_SELF();
}

static void show(void)
{
    RETURN_CODE_TYPE rc;
    MUTEX_STATUS_TYPE st;
    MUTEX_ID_TYPE held = 12345;
    GET_MUTEX_STATUS(m, &st, &rc);
    T("p: GET_MUTEX_STATUS -> %s %s owner=%s prio=%d count=%d waiting=%d", rc_name(rc),
      st.MUTEX_STATE == OWNED ? "OWNED" : "AVAILABLE",
      st.MUTEX_STATE != OWNED ? "none" : st.MUTEX_OWNER == p ? "p" : "?",
      (int)st.MUTEX_PRIORITY, (int)st.LOCK_COUNT, (int)st.WAITING_PROCESSES);
    GET_PROCESS_MUTEX_STATE(p, &held, &rc);
    T("p: GET_PROCESS_MUTEX_STATE -> %s %s", rc_name(rc),
      held == m ? "m" : held == NO_MUTEX_OWNED ? "NO_MUTEX_OWNED" : "?");
}

static void p_main(void)
{
    RETURN_CODE_TYPE rc;
    show();
    ACQUIRE_MUTEX(m, INFINITE_TIME_VALUE, &rc);
    T("p: ACQUIRE_MUTEX -> %s, priority %d", rc_name(rc), (int)prio_of(p));
    ACQUIRE_MUTEX(m, 0, &rc);
    T("p: ACQUIRE_MUTEX again -> %s, priority %d", rc_name(rc), (int)prio_of(p));
    show();
    START(q, &rc);
    TRC("p: START(q, 30)", rc);
    T("p: q is %s", state_name(state_of(q)));
    TIMED_WAIT(10 * MS, &rc);
    TRC("p: TIMED_WAIT while owning", rc);
    RELEASE_MUTEX(m, &rc);
    T("p: RELEASE_MUTEX -> %s, priority %d", rc_name(rc), (int)prio_of(p));
    T("p: RELEASE_MUTEX");
    RELEASE_MUTEX(m, &rc);
    T("p: RELEASE_MUTEX returned %s, priority %d", rc_name(rc), (int)prio_of(p));
    show();
    RELEASE_MUTEX(m, &rc);
    TRC("p: RELEASE_MUTEX not owned", rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    CREATE_MUTEX(N("m"), 40, PRIORITY, &m, &rc);
    TRC("main: CREATE_MUTEX(ceiling 40)", rc);
    p = mkproc("p", p_main, 20);
    q = mkproc("q", q_main, 30);
    start(p);
    go_normal();
    return 1;
}
