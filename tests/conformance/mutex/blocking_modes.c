/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * mutex/blocking_modes - who may not wait: every service that would block
 * (WAIT_SEMAPHORE, WAIT_EVENT, RECEIVE_BUFFER, SEND_BUFFER, READ_BLACKBOARD,
 * ACQUIRE_MUTEX, TIMED_WAIT, SUSPEND_SELF) returns INVALID_MODE when called
 * with a non-zero time-out by the main process (initialisation), by a mutex
 * owner, or by the error handler; with a zero time-out they answer
 * NOT_AVAILABLE (or NO_ERROR) without blocking.  The error handler may not
 * acquire any mutex (INVALID_CONFIG: it is above every ceiling).
 */
#include "../conformance.h"

static SEMAPHORE_ID_TYPE s;
static EVENT_ID_TYPE e;
static BUFFER_ID_TYPE bfull, bempty;
static BLACKBOARD_ID_TYPE bb;
static MUTEX_ID_TYPE m, m2;

static void try_all(const char *who, SYSTEM_TIME_TYPE t)
{
    RETURN_CODE_TYPE rc;
    char msg[16];
    MESSAGE_SIZE_TYPE len;
    const char *tt = t == 0 ? "0" : "10ms";
    WAIT_SEMAPHORE(s, t, &rc);
    T("%s: WAIT_SEMAPHORE(%s) -> %s", who, tt, rc_name(rc));
    WAIT_EVENT(e, t, &rc);
    T("%s: WAIT_EVENT(%s) -> %s", who, tt, rc_name(rc));
    RECEIVE_BUFFER(bempty, t, (MESSAGE_ADDR_TYPE)msg, &len, &rc);
    T("%s: RECEIVE_BUFFER(empty, %s) -> %s", who, tt, rc_name(rc));
    SEND_BUFFER(bfull, (MESSAGE_ADDR_TYPE) "x", 1, t, &rc);
    T("%s: SEND_BUFFER(full, %s) -> %s", who, tt, rc_name(rc));
    READ_BLACKBOARD(bb, t, (MESSAGE_ADDR_TYPE)msg, &len, &rc);
    T("%s: READ_BLACKBOARD(empty, %s) -> %s", who, tt, rc_name(rc));
}

static void handler(void)
{
    ERROR_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    GET_ERROR_STATUS(&st, &rc);
    try_all("handler", 10 * MS);
    try_all("handler", 0);
    ACQUIRE_MUTEX(m2, 0, &rc);
    TRC("handler: ACQUIRE_MUTEX(0)", rc);
    SUSPEND_SELF(10 * MS, &rc);
    TRC("handler: SUSPEND_SELF(10ms)", rc);
    STOP_SELF();
}

static void owner_main(void)
{
    RETURN_CODE_TYPE rc;
    ACQUIRE_MUTEX(m, INFINITE_TIME_VALUE, &rc);
    TRC("owner: ACQUIRE_MUTEX(m)", rc);
    try_all("owner", 10 * MS);
    try_all("owner", 0);
    TIMED_WAIT(10 * MS, &rc);
    TRC("owner: TIMED_WAIT(10ms)", rc);
    SUSPEND_SELF(10 * MS, &rc);
    TRC("owner: SUSPEND_SELF(10ms)", rc);
    SUSPEND_SELF(0, &rc);
    TRC("owner: SUSPEND_SELF(0)", rc);
    RELEASE_MUTEX(m, &rc);
    TRC("owner: RELEASE_MUTEX(m)", rc);
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "go", 2, &rc);
    TRC("owner: RAISE_APPLICATION_ERROR returned", rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    s = mksem("s", 0, 1, FIFO);
    e = mkevent("e");
    CREATE_BUFFER(N("bfull"), 8, 1, FIFO, &bfull, &rc);
    CREATE_BUFFER(N("bempty"), 8, 1, FIFO, &bempty, &rc);
    CREATE_BLACKBOARD(N("bb"), 16, &bb, &rc);
    CREATE_MUTEX(N("m"), 50, FIFO, &m, &rc);
    CREATE_MUTEX(N("m2"), 50, FIFO, &m2, &rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
    SEND_BUFFER(bfull, (MESSAGE_ADDR_TYPE) "f", 1, 0, &rc);
    TRC("main: SEND_BUFFER(bfull) fills it", rc);
    try_all("main", 10 * MS);
    try_all("main", 0);
    ACQUIRE_MUTEX(m, 10 * MS, &rc);
    TRC("main: ACQUIRE_MUTEX(10ms)", rc);
    start(mkproc("owner", owner_main, 10));
    go_normal();
    return 0;
}
