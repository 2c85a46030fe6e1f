/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * mutex/errors - return codes of the mutex services.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, hi;
static MUTEX_ID_TYPE m, m2;

static void hi_main(void)
{
    RETURN_CODE_TYPE rc;
    ACQUIRE_MUTEX(m, 0, &rc);
    TRC("hi: ACQUIRE_MUTEX(priority 50 > ceiling 40)", rc);
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    MUTEX_ID_TYPE id = 0;
    MUTEX_STATUS_TYPE st;
    CREATE_MUTEX(N("late"), 10, FIFO, &id, &rc);
    TRC("ctl: CREATE_MUTEX in NORMAL mode", rc);
    ACQUIRE_MUTEX(999, 0, &rc);
    TRC("ctl: ACQUIRE_MUTEX(unknown id)", rc);
    ACQUIRE_MUTEX(m, -5, &rc);
    TRC("ctl: ACQUIRE_MUTEX(negative time-out)", rc);
    RELEASE_MUTEX(999, &rc);
    TRC("ctl: RELEASE_MUTEX(unknown id)", rc);
    RELEASE_MUTEX(m, &rc);
    TRC("ctl: RELEASE_MUTEX(not owned)", rc);
    RESET_MUTEX(m, ctl, &rc);
    TRC("ctl: RESET_MUTEX(not owned by ctl)", rc);
    RESET_MUTEX(999, ctl, &rc);
    TRC("ctl: RESET_MUTEX(unknown id)", rc);
    GET_MUTEX_STATUS(999, &st, &rc);
    TRC("ctl: GET_MUTEX_STATUS(unknown id)", rc);
    GET_MUTEX_ID(N("nosuch"), &id, &rc);
    TRC("ctl: GET_MUTEX_ID(unknown name)", rc);
    GET_MUTEX_ID(N("m"), &id, &rc);
    T("ctl: GET_MUTEX_ID(m) -> %s %s", rc_name(rc), id == m ? "same id" : "other id");
    ACQUIRE_MUTEX(m, 0, &rc);
    TRC("ctl: ACQUIRE_MUTEX(m)", rc);
    ACQUIRE_MUTEX(m2, 0, &rc);
    TRC("ctl: ACQUIRE_MUTEX(m2) while owning m", rc);
    RESET_MUTEX(m, ctl, &rc);
    TRC("ctl: RESET_MUTEX(m, ctl)", rc);
    GET_MUTEX_STATUS(m, &st, &rc);
    T("ctl: m is %s, ctl priority %d", st.MUTEX_STATE == OWNED ? "OWNED" : "AVAILABLE",
      (int)prio_of(ctl));
    START(hi, &rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    MUTEX_ID_TYPE id;
    CREATE_MUTEX(N("m"), 40, FIFO, &m, &rc);
    TRC("main: CREATE_MUTEX", rc);
    CREATE_MUTEX(N("m2"), 40, FIFO, &m2, &rc);
    TRC("main: CREATE_MUTEX(m2)", rc);
    CREATE_MUTEX(N("m"), 40, FIFO, &id, &rc);
    TRC("main: CREATE_MUTEX(existing name)", rc);
    CREATE_MUTEX(N("a"), 0, FIFO, &id, &rc);
    TRC("main: CREATE_MUTEX(priority 0)", rc);
    CREATE_MUTEX(N("b"), MAX_PRIORITY_VALUE + 1, FIFO, &id, &rc);
    TRC("main: CREATE_MUTEX(priority MAX_PRIORITY_VALUE + 1)", rc);
    CREATE_MUTEX(N("c"), 10, (QUEUING_DISCIPLINE_TYPE)7, &id, &rc);
    TRC("main: CREATE_MUTEX(bad discipline)", rc);
    ctl = mkproc("ctl", ctl_main, 20);
    hi = mkproc("hi", hi_main, 50);
    start(ctl);
    go_normal();
    return 1;
}
