/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * blackboard/display_read - DISPLAY_BLACKBOARD wakes every waiting reader
 * (they run by priority, before DISPLAY returns); the message stays until it
 * is replaced or cleared; reading an empty blackboard gives NOT_AVAILABLE
 * with a zero time-out and TIMED_OUT with another one.
 */
#include "../conformance.h"

static BLACKBOARD_ID_TYPE bb;

static void rd(const char *who, SYSTEM_TIME_TYPE timeout)
{
    RETURN_CODE_TYPE rc;
    APEX_BYTE msg[17];
    MESSAGE_SIZE_TYPE len = -1;
    memset(msg, 0, sizeof msg);
    READ_BLACKBOARD(bb, timeout, msg, &len, &rc);
    if (rc == NO_ERROR)
        T("%s: READ_BLACKBOARD -> NO_ERROR %s len=%d", who, (char *)msg, (int)len);
    else
        T("%s: READ_BLACKBOARD -> %s", who, rc_name(rc));
}

static void reader(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE me;
    PROCESS_STATUS_TYPE st;
    char name[MAX_NAME_LENGTH + 1] = {0};
    GET_MY_ID(&me, &rc);
    GET_PROCESS_STATUS(me, &st, &rc);
    memcpy(name, st.ATTRIBUTES.NAME, MAX_NAME_LENGTH);
    T("%s: READ_BLACKBOARD(INFINITE)", name);
    rd(name, INFINITE_TIME_VALUE);
    STOP_SELF();
}

static void show(void)
{
    RETURN_CODE_TYPE rc;
    BLACKBOARD_STATUS_TYPE st;
    GET_BLACKBOARD_STATUS(bb, &st, &rc);
    T("ctl: GET_BLACKBOARD_STATUS -> %s %s size=%d waiting=%d", rc_name(rc),
      st.EMPTY_INDICATOR == EMPTY ? "EMPTY" : "OCCUPIED", (int)st.MAX_MESSAGE_SIZE,
      (int)st.WAITING_PROCESSES);
}

static void display(const char *msg)
{
    RETURN_CODE_TYPE rc;
    T("ctl: DISPLAY_BLACKBOARD(%s)", msg);
    DISPLAY_BLACKBOARD(bb, (MESSAGE_ADDR_TYPE)msg, (MESSAGE_SIZE_TYPE)strlen(msg), &rc);
    TRC("ctl: DISPLAY_BLACKBOARD returned", rc);
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    show();
    display("hello");
    show();
    rd("ctl", 0);
    display("world!");
    rd("ctl", 0);
    rd("ctl", INFINITE_TIME_VALUE);
    CLEAR_BLACKBOARD(bb, &rc);
    TRC("ctl: CLEAR_BLACKBOARD", rc);
    show();
    rd("ctl", 0);
    rd("ctl", 30 * MS);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    CREATE_BLACKBOARD(N("bb"), 16, &bb, &rc);
    TRC("main: CREATE_BLACKBOARD(size 16)", rc);
    start(mkproc("r20", reader, 20));
    start(mkproc("r30", reader, 30));
    start(mkproc("ctl", ctl_main, 10));
    go_normal();
    return 1;
}
