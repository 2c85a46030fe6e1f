/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * semaphore/errors - return codes of the semaphore services.
 */
#include "../conformance.h"

static SEMAPHORE_ID_TYPE s, full;

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    SEMAPHORE_ID_TYPE id = 0;
    SEMAPHORE_STATUS_TYPE st;
    CREATE_SEMAPHORE(N("late"), 0, 1, FIFO, &id, &rc);
    TRC("ctl: CREATE_SEMAPHORE in NORMAL mode", rc);
    SIGNAL_SEMAPHORE(full, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE at the maximum value", rc);
    SIGNAL_SEMAPHORE(999, &rc);
    TRC("ctl: SIGNAL_SEMAPHORE(unknown id)", rc);
    WAIT_SEMAPHORE(999, 0, &rc);
    TRC("ctl: WAIT_SEMAPHORE(unknown id)", rc);
    WAIT_SEMAPHORE(s, -5, &rc);
    TRC("ctl: WAIT_SEMAPHORE(negative time-out)", rc);
    GET_SEMAPHORE_STATUS(999, &st, &rc);
    TRC("ctl: GET_SEMAPHORE_STATUS(unknown id)", rc);
    GET_SEMAPHORE_ID(N("nosuch"), &id, &rc);
    TRC("ctl: GET_SEMAPHORE_ID(unknown name)", rc);
    GET_SEMAPHORE_ID(N("s"), &id, &rc);
    T("ctl: GET_SEMAPHORE_ID(s) -> %s %s", rc_name(rc), id == s ? "same id" : "other id");
    GET_SEMAPHORE_STATUS(full, &st, &rc);
    T("ctl: GET_SEMAPHORE_STATUS(full) -> %s value=%d max=%d waiting=%d", rc_name(rc),
      (int)st.CURRENT_VALUE, (int)st.MAXIMUM_VALUE, (int)st.WAITING_PROCESSES);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    SEMAPHORE_ID_TYPE id;
    s = mksem("s", 0, 5, FIFO);
    full = mksem("full", 1, 1, PRIORITY);
    CREATE_SEMAPHORE(N("s"), 0, 5, FIFO, &id, &rc);
    TRC("main: CREATE_SEMAPHORE(existing name)", rc);
    CREATE_SEMAPHORE(N("a"), -1, 5, FIFO, &id, &rc);
    TRC("main: CREATE_SEMAPHORE(negative value)", rc);
    CREATE_SEMAPHORE(N("b"), 6, 5, FIFO, &id, &rc);
    TRC("main: CREATE_SEMAPHORE(value > maximum)", rc);
    CREATE_SEMAPHORE(N("c"), 0, MAX_SEMAPHORE_VALUE + 1, FIFO, &id, &rc);
    TRC("main: CREATE_SEMAPHORE(maximum > MAX_SEMAPHORE_VALUE)", rc);
    CREATE_SEMAPHORE(N("d"), 0, -1, FIFO, &id, &rc);
    TRC("main: CREATE_SEMAPHORE(negative maximum)", rc);
    CREATE_SEMAPHORE(N("e"), 0, 5, (QUEUING_DISCIPLINE_TYPE)7, &id, &rc);
    TRC("main: CREATE_SEMAPHORE(bad discipline)", rc);
    start(mkproc("ctl", ctl_main, 20));
    go_normal();
    return 1;
}
