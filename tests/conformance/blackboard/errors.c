/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * blackboard/errors - return codes of the blackboard services.
 */
#include "../conformance.h"

static BLACKBOARD_ID_TYPE bb;

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    BLACKBOARD_ID_TYPE id = 0;
    BLACKBOARD_STATUS_TYPE st;
    APEX_BYTE msg[32] = "0123456789abcdefXYZ";
    MESSAGE_SIZE_TYPE len;
    CREATE_BLACKBOARD(N("late"), 16, &id, &rc);
    TRC("ctl: CREATE_BLACKBOARD in NORMAL mode", rc);
    DISPLAY_BLACKBOARD(bb, msg, 17, &rc);
    TRC("ctl: DISPLAY_BLACKBOARD(length > maximum size)", rc);
    DISPLAY_BLACKBOARD(bb, msg, -1, &rc);
    TRC("ctl: DISPLAY_BLACKBOARD(negative length)", rc);
    DISPLAY_BLACKBOARD(999, msg, 4, &rc);
    TRC("ctl: DISPLAY_BLACKBOARD(unknown id)", rc);
    READ_BLACKBOARD(999, 0, msg, &len, &rc);
    TRC("ctl: READ_BLACKBOARD(unknown id)", rc);
    READ_BLACKBOARD(bb, -5, msg, &len, &rc);
    TRC("ctl: READ_BLACKBOARD(negative time-out)", rc);
    CLEAR_BLACKBOARD(999, &rc);
    TRC("ctl: CLEAR_BLACKBOARD(unknown id)", rc);
    GET_BLACKBOARD_STATUS(999, &st, &rc);
    TRC("ctl: GET_BLACKBOARD_STATUS(unknown id)", rc);
    GET_BLACKBOARD_ID(N("nosuch"), &id, &rc);
    TRC("ctl: GET_BLACKBOARD_ID(unknown name)", rc);
    GET_BLACKBOARD_ID(N("bb"), &id, &rc);
    T("ctl: GET_BLACKBOARD_ID(bb) -> %s %s", rc_name(rc), id == bb ? "same id" : "other id");
    DISPLAY_BLACKBOARD(bb, msg, 16, &rc);
    TRC("ctl: DISPLAY_BLACKBOARD(length = maximum size)", rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    BLACKBOARD_ID_TYPE id;
    CREATE_BLACKBOARD(N("bb"), 16, &bb, &rc);
    TRC("main: CREATE_BLACKBOARD", rc);
    CREATE_BLACKBOARD(N("bb"), 16, &id, &rc);
    TRC("main: CREATE_BLACKBOARD(existing name)", rc);
    CREATE_BLACKBOARD(N("c"), 0, &id, &rc);
    TRC("main: CREATE_BLACKBOARD(message size 0)", rc);
    start(mkproc("ctl", ctl_main, 20));
    go_normal();
    return 1;
}
