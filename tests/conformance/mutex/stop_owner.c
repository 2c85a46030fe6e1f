/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * mutex/stop_owner - STOP of the process owning a mutex releases it: the
 * first waiter becomes the owner (at the ceiling priority); the next waiter
 * gets it on RELEASE_MUTEX.
 * @module windows=0:90,0:90@1 duration=1000
 *
 * owner (20, core 0) takes m (ceiling 30) and computes without end.  ctl
 * (60, core 1, never takes m) cannot suspend it (INVALID_MODE: it owns a
 * mutex); w28 and w25 (core 1) run and queue on m (FIFO: w28 first, being
 * started first and higher); a waiter cannot be suspended either.  ctl stops
 * the owner.  (Processes can only queue on a mutex whose owner is on another
 * core: the owner runs at the ceiling, may not block, and may not be
 * suspended.)
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, owner, w28, w25;
static MUTEX_ID_TYPE m;
static SEMAPHORE_ID_TYPE done;

static void show(const char *who)
{
    RETURN_CODE_TYPE rc;
    MUTEX_STATUS_TYPE st;
    const char *o = "none";
    GET_MUTEX_STATUS(m, &st, &rc);
    if (st.MUTEX_STATE == OWNED)
        o = st.MUTEX_OWNER == owner ? "owner" : st.MUTEX_OWNER == w28 ? "w28"
            : st.MUTEX_OWNER == w25 ? "w25" : "?";
    T("%s: GET_MUTEX_STATUS -> %s %s owner=%s count=%d waiting=%d", who, rc_name(rc),
      st.MUTEX_STATE == OWNED ? "OWNED" : "AVAILABLE", o, (int)st.LOCK_COUNT,
      (int)st.WAITING_PROCESSES);
}

static void owner_main(void)
{
    RETURN_CODE_TYPE rc;
    ACQUIRE_MUTEX(m, INFINITE_TIME_VALUE, &rc);
    T("owner: ACQUIRE_MUTEX -> %s, priority %d", rc_name(rc), (int)prio_of(owner));
    for (;;)
        busy_ns(1 * MS);
}

static void waiter(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE me;
    PROCESS_STATUS_TYPE st;
    char name[MAX_NAME_LENGTH + 1] = {0};
    GET_MY_ID(&me, &rc);
    GET_PROCESS_STATUS(me, &st, &rc);
    memcpy(name, st.ATTRIBUTES.NAME, MAX_NAME_LENGTH);
    T("%s: ACQUIRE_MUTEX", name);
    ACQUIRE_MUTEX(m, INFINITE_TIME_VALUE, &rc);
    T("%s: ACQUIRE_MUTEX -> %s, priority %d", name, rc_name(rc), (int)prio_of(me));
    show(name);
    RELEASE_MUTEX(m, &rc);
    T("%s: RELEASE_MUTEX -> %s, priority %d", name, rc_name(rc), (int)prio_of(me));
    SIGNAL_SEMAPHORE(done, &rc);
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    TIMED_WAIT(20 * MS, &rc); /* the owner takes the mutex meanwhile (core 0) */
    show("ctl");
    SUSPEND(owner, &rc);
    TRC("ctl: SUSPEND(owner)", rc);
    start(w28);
    start(w25);
    TIMED_WAIT(20 * MS, &rc); /* the waiters queue meanwhile */
    show("ctl");
    SUSPEND(w28, &rc);
    TRC("ctl: SUSPEND(w28) (waiting on the mutex)", rc);
    STOP(owner, &rc);
    TRC("ctl: STOP(owner)", rc);
    show("ctl");
    T("ctl: w28 priority %d, w25 priority %d", (int)prio_of(w28), (int)prio_of(w25));
    WAIT_SEMAPHORE(done, INFINITE_TIME_VALUE, &rc);
    WAIT_SEMAPHORE(done, INFINITE_TIME_VALUE, &rc);
    show("ctl");
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    CREATE_MUTEX(N("m"), 30, FIFO, &m, &rc);
    TRC("main: CREATE_MUTEX(ceiling 30, FIFO)", rc);
    done = mksem("done", 0, 2, FIFO);
    ctl = mkproc("ctl", ctl_main, 60);
    owner = mkproc("owner", owner_main, 20);
    w28 = mkproc("w28", waiter, 28);
    w25 = mkproc("w25", waiter, 25);
    INITIALIZE_PROCESS_CORE_AFFINITY(ctl, 1, &rc);
    INITIALIZE_PROCESS_CORE_AFFINITY(w28, 1, &rc);
    INITIALIZE_PROCESS_CORE_AFFINITY(w25, 1, &rc);
    start(ctl);
    start(owner);
    go_normal();
    return 1;
}
