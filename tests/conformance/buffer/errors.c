/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * buffer/errors - return codes of the buffer services.
 */
#include "../conformance.h"

static BUFFER_ID_TYPE b;

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    BUFFER_ID_TYPE id = 0;
    BUFFER_STATUS_TYPE st;
    APEX_BYTE msg[32] = "0123456789abcdefXYZ";
    MESSAGE_SIZE_TYPE len;
    CREATE_BUFFER(N("late"), 16, 2, FIFO, &id, &rc);
    TRC("ctl: CREATE_BUFFER in NORMAL mode", rc);
    SEND_BUFFER(b, msg, 17, 0, &rc);
    TRC("ctl: SEND_BUFFER(length > maximum size)", rc);
    SEND_BUFFER(b, msg, -1, 0, &rc);
    TRC("ctl: SEND_BUFFER(negative length)", rc);
    SEND_BUFFER(b, msg, 4, -5, &rc);
    TRC("ctl: SEND_BUFFER(negative time-out)", rc);
    SEND_BUFFER(999, msg, 4, 0, &rc);
    TRC("ctl: SEND_BUFFER(unknown id)", rc);
    RECEIVE_BUFFER(999, 0, msg, &len, &rc);
    TRC("ctl: RECEIVE_BUFFER(unknown id)", rc);
    RECEIVE_BUFFER(b, -5, msg, &len, &rc);
    TRC("ctl: RECEIVE_BUFFER(negative time-out)", rc);
    GET_BUFFER_STATUS(999, &st, &rc);
    TRC("ctl: GET_BUFFER_STATUS(unknown id)", rc);
    GET_BUFFER_ID(N("nosuch"), &id, &rc);
    TRC("ctl: GET_BUFFER_ID(unknown name)", rc);
    GET_BUFFER_ID(N("b"), &id, &rc);
    T("ctl: GET_BUFFER_ID(b) -> %s %s", rc_name(rc), id == b ? "same id" : "other id");
    SEND_BUFFER(b, msg, 16, 0, &rc);
    TRC("ctl: SEND_BUFFER(length = maximum size)", rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    BUFFER_ID_TYPE id;
    CREATE_BUFFER(N("b"), 16, 2, FIFO, &b, &rc);
    TRC("main: CREATE_BUFFER", rc);
    CREATE_BUFFER(N("b"), 16, 2, FIFO, &id, &rc);
    TRC("main: CREATE_BUFFER(existing name)", rc);
    CREATE_BUFFER(N("c"), 0, 2, FIFO, &id, &rc);
    TRC("main: CREATE_BUFFER(message size 0)", rc);
    CREATE_BUFFER(N("d"), 16, 0, FIFO, &id, &rc);
    TRC("main: CREATE_BUFFER(0 messages)", rc);
    CREATE_BUFFER(N("e"), 16, 2, (QUEUING_DISCIPLINE_TYPE)7, &id, &rc);
    TRC("main: CREATE_BUFFER(bad discipline)", rc);
    start(mkproc("ctl", ctl_main, 20));
    go_normal();
    return 1;
}
