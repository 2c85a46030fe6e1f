/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * event/errors - return codes of the event services.
 */
#include "../conformance.h"

static EVENT_ID_TYPE e;

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    EVENT_ID_TYPE id = 0;
    EVENT_STATUS_TYPE st;
    CREATE_EVENT(N("late"), &id, &rc);
    TRC("ctl: CREATE_EVENT in NORMAL mode", rc);
    SET_EVENT(999, &rc);
    TRC("ctl: SET_EVENT(unknown id)", rc);
    RESET_EVENT(999, &rc);
    TRC("ctl: RESET_EVENT(unknown id)", rc);
    WAIT_EVENT(999, 0, &rc);
    TRC("ctl: WAIT_EVENT(unknown id)", rc);
    WAIT_EVENT(e, -5, &rc);
    TRC("ctl: WAIT_EVENT(negative time-out)", rc);
    GET_EVENT_STATUS(999, &st, &rc);
    TRC("ctl: GET_EVENT_STATUS(unknown id)", rc);
    GET_EVENT_ID(N("nosuch"), &id, &rc);
    TRC("ctl: GET_EVENT_ID(unknown name)", rc);
    GET_EVENT_ID(N("e"), &id, &rc);
    T("ctl: GET_EVENT_ID(e) -> %s %s", rc_name(rc), id == e ? "same id" : "other id");
    SET_EVENT(e, &rc);
    TRC("ctl: SET_EVENT", rc);
    SET_EVENT(e, &rc);
    TRC("ctl: SET_EVENT while UP", rc);
    RESET_EVENT(e, &rc);
    TRC("ctl: RESET_EVENT", rc);
    RESET_EVENT(e, &rc);
    TRC("ctl: RESET_EVENT while DOWN", rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    EVENT_ID_TYPE id;
    e = mkevent("e");
    CREATE_EVENT(N("e"), &id, &rc);
    TRC("main: CREATE_EVENT(existing name)", rc);
    start(mkproc("ctl", ctl_main, 20));
    go_normal();
    return 1;
}
