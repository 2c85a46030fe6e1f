/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * process/preemption_lock - while ctl (10) holds the preemption lock, the
 * release of hi (30, by SIGNAL_SEMAPHORE) and the START of top (40) are
 * deferred; they take place, by priority, when the lock level returns to 0.
 * Blocking services are refused while the lock is held.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, hi, top;
static SEMAPHORE_ID_TYPE s, other;

static void hi_main(void)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE ps;
    WAIT_SEMAPHORE(s, INFINITE_TIME_VALUE, &rc);
    GET_PARTITION_STATUS(&ps, &rc);
    T("hi: released, lock level %d", (int)ps.LOCK_LEVEL);
    STOP_SELF();
}

static void top_main(void)
{
    T("top: running, hi is %s", state_name(state_of(hi)));
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    LOCK_LEVEL_TYPE level = -1;
    PARTITION_STATUS_TYPE ps;
    LOCK_PREEMPTION(&level, &rc);
    T("ctl: LOCK_PREEMPTION -> %s level %d", rc_name(rc), (int)level);
    LOCK_PREEMPTION(&level, &rc);
    T("ctl: LOCK_PREEMPTION -> %s level %d", rc_name(rc), (int)level);
    GET_PARTITION_STATUS(&ps, &rc);
    T("ctl: partition lock level %d", (int)ps.LOCK_LEVEL);
    SIGNAL_SEMAPHORE(s, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE(s)", rc);
    START(top, &rc);
    TRC("ctl: START(top)", rc);
    T("ctl: hi is %s, top is %s", state_name(state_of(hi)), state_name(state_of(top)));
    WAIT_SEMAPHORE(other, 10 * MS, &rc);
    TRC("ctl: WAIT_SEMAPHORE(10ms) while locked", rc);
    WAIT_SEMAPHORE(other, 0, &rc);
    TRC("ctl: WAIT_SEMAPHORE(0) while locked", rc);
    TIMED_WAIT(10 * MS, &rc);
    TRC("ctl: TIMED_WAIT(10ms) while locked", rc);
    SUSPEND_SELF(10 * MS, &rc);
    TRC("ctl: SUSPEND_SELF(10ms) while locked", rc);
    UNLOCK_PREEMPTION(&level, &rc);
    T("ctl: UNLOCK_PREEMPTION -> %s level %d", rc_name(rc), (int)level);
    T("ctl: still running");
    T("ctl: UNLOCK_PREEMPTION");
    UNLOCK_PREEMPTION(&level, &rc);
    T("ctl: UNLOCK_PREEMPTION returned %s level %d", rc_name(rc), (int)level);
    UNLOCK_PREEMPTION(&level, &rc);
    T("ctl: UNLOCK_PREEMPTION -> %s level %d", rc_name(rc), (int)level);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    LOCK_LEVEL_TYPE level = -1;
    LOCK_PREEMPTION(&level, &rc);
    TRC("main: LOCK_PREEMPTION during initialisation", rc);
    s = mksem("s", 0, 10, FIFO);
    other = mksem("other", 0, 10, FIFO);
    hi = mkproc("hi", hi_main, 30);
    top = mkproc("top", top_main, 40);
    ctl = mkproc("ctl", ctl_main, 10);
    start(hi);
    start(ctl);
    go_normal();
    return 1;
}
