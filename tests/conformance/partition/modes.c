/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * partition/modes - GET_PARTITION_STATUS during initialisation and in NORMAL
 * mode; SET_PARTITION_MODE return codes; every creation service refused in
 * NORMAL mode; REPORT_APPLICATION_MESSAGE (seen in the manager's output, see
 * modes.output); SET_PARTITION_MODE(IDLE) from a process stops the partition
 * (nothing it does afterwards is seen).
 */
#include "../conformance.h"

static void show(const char *who)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE st;
    memset(&st, 0, sizeof st);
    GET_PARTITION_STATUS(&st, &rc);
    T("%s: GET_PARTITION_STATUS -> %s mode=%s period=%lldms duration=%lldms lock=%d "
      "start=%s",
      who, rc_name(rc), mode_name(st.OPERATING_MODE), (long long)(st.PERIOD / MS),
      (long long)(st.DURATION / MS), (int)st.LOCK_LEVEL,
      st.START_CONDITION == NORMAL_START ? "NORMAL_START" : "other");
}

static void idle_main(void)
{
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a = attrs("late", idle_main, 10);
    PROCESS_ID_TYPE pid;
    SEMAPHORE_ID_TYPE s;
    EVENT_ID_TYPE e;
    BUFFER_ID_TYPE b;
    BLACKBOARD_ID_TYPE bb;
    MUTEX_ID_TYPE m;
    show("ctl");
    SET_PARTITION_MODE(NORMAL, &rc);
    TRC("ctl: SET_PARTITION_MODE(NORMAL) in NORMAL mode", rc);
    SET_PARTITION_MODE((OPERATING_MODE_TYPE)9, &rc);
    TRC("ctl: SET_PARTITION_MODE(9)", rc);
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("ctl: CREATE_PROCESS in NORMAL mode", rc);
    CREATE_SEMAPHORE(N("s"), 0, 1, FIFO, &s, &rc);
    TRC("ctl: CREATE_SEMAPHORE in NORMAL mode", rc);
    CREATE_EVENT(N("e"), &e, &rc);
    TRC("ctl: CREATE_EVENT in NORMAL mode", rc);
    CREATE_BUFFER(N("b"), 8, 1, FIFO, &b, &rc);
    TRC("ctl: CREATE_BUFFER in NORMAL mode", rc);
    CREATE_BLACKBOARD(N("bb"), 8, &bb, &rc);
    TRC("ctl: CREATE_BLACKBOARD in NORMAL mode", rc);
    CREATE_MUTEX(N("m"), 10, FIFO, &m, &rc);
    TRC("ctl: CREATE_MUTEX in NORMAL mode", rc);
    REPORT_APPLICATION_MESSAGE((MESSAGE_ADDR_TYPE) "conformance says hi", 19, &rc);
    TRC("ctl: REPORT_APPLICATION_MESSAGE", rc);
    REPORT_APPLICATION_MESSAGE((MESSAGE_ADDR_TYPE) "x", -1, &rc);
    TRC("ctl: REPORT_APPLICATION_MESSAGE(negative length)", rc);
    T("ctl: SET_PARTITION_MODE(IDLE)");
    SET_PARTITION_MODE(IDLE, &rc);
    TRC("ctl: SET_PARTITION_MODE(IDLE) returned (must not happen)", rc);
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    show("main");
    SET_PARTITION_MODE((OPERATING_MODE_TYPE)9, &rc);
    TRC("main: SET_PARTITION_MODE(9)", rc);
    SET_PARTITION_MODE(WARM_START, &rc);
    TRC("main: SET_PARTITION_MODE(WARM_START) in COLD_START", rc);
    start(mkproc("ctl", ctl_main, 20));
    go_normal();
    return 1;
}
