/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * process/errors_more - return codes not covered by process/errors:
 * SUSPEND_SELF from the main process, with a negative or zero time-out;
 * DELAYED_START of an unknown or non-DORMANT process or with an infinite
 * or overflowing delay; RESUME of an unknown or non-suspended process; LOCK_PREEMPTION
 * beyond MAX_LOCK_LEVEL; GET_PROCESS_MUTEX_STATE (unknown process, nothing
 * owned, the preemption lock).
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, w, x;

static void w_main(void)
{
    T("w: runs");
    STOP_SELF();
}

static void x_main(void) { STOP_SELF(); }

static void mutex_state(const char *what, PROCESS_ID_TYPE pid)
{
    MUTEX_ID_TYPE m = 0;
    RETURN_CODE_TYPE rc;
    GET_PROCESS_MUTEX_STATE(pid, &m, &rc);
    T("ctl: GET_PROCESS_MUTEX_STATE(%s) -> %s %s", what, rc_name(rc),
      rc != NO_ERROR ? "" : m == NO_MUTEX_OWNED ? "NO_MUTEX_OWNED"
                      : m == PREEMPTION_LOCK_MUTEX ? "PREEMPTION_LOCK_MUTEX" : "a mutex");
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    LOCK_LEVEL_TYPE lvl = 0;
    SYSTEM_TIME_TYPE t0;
    DELAYED_START(9999, 10 * MS, &rc);
    TRC("ctl: DELAYED_START(unknown id)", rc);
    DELAYED_START(w, 10 * MS, &rc);
    TRC("ctl: DELAYED_START(w, READY)", rc);
    DELAYED_START(x, INFINITE_TIME_VALUE, &rc);
    TRC("ctl: DELAYED_START(x, INFINITE_TIME_VALUE)", rc);
    DELAYED_START(x, 0x7ffffffffffffff0LL, &rc);
    TRC("ctl: DELAYED_START(x, delay overflowing the clock)", rc);
    RESUME(9999, &rc);
    TRC("ctl: RESUME(unknown id)", rc);
    RESUME(w, &rc);
    TRC("ctl: RESUME(w, not suspended)", rc);
    SUSPEND_SELF(-5, &rc);
    TRC("ctl: SUSPEND_SELF(negative time-out)", rc);
    t0 = now_ns();
    SUSPEND_SELF(0, &rc);
    TRC("ctl: SUSPEND_SELF(0)", rc);
    T("ctl: w ran meanwhile: %s, returned within 10 ms: %s",
      state_of(w) == DORMANT ? "yes" : "no", now_ns() - t0 < 10 * MS ? "yes" : "no");
    mutex_state("unknown id", 9999);
    mutex_state("ctl", ctl);
    for (int i = 0; i < MAX_LOCK_LEVEL; i++)
        LOCK_PREEMPTION(&lvl, &rc);
    T("ctl: LOCK_PREEMPTION x%d -> %s level %d", MAX_LOCK_LEVEL, rc_name(rc), (int)lvl);
    mutex_state("ctl", ctl);
    LOCK_PREEMPTION(&lvl, &rc);
    T("ctl: LOCK_PREEMPTION beyond MAX_LOCK_LEVEL -> %s level %d", rc_name(rc), (int)lvl);
    for (int i = 0; i < MAX_LOCK_LEVEL; i++)
        UNLOCK_PREEMPTION(&lvl, &rc);
    T("ctl: UNLOCK_PREEMPTION x%d -> %s level %d", MAX_LOCK_LEVEL, rc_name(rc), (int)lvl);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    SUSPEND_SELF(0, &rc);
    TRC("main: SUSPEND_SELF(0)", rc);
    SUSPEND_SELF(10 * MS, &rc);
    TRC("main: SUSPEND_SELF(10ms)", rc);
    ctl = mkproc("ctl", ctl_main, 20);
    w = mkproc("w", w_main, 10);
    x = mkproc("x", x_main, 10);
    start(ctl);
    start(w);
    go_normal();
    return 0;
}
