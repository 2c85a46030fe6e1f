/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * hm/errors - the return codes of the health-monitoring services:
 * REPORT_APPLICATION_MESSAGE, CREATE_ERROR_HANDLER, CONFIGURE_ERROR_HANDLER,
 * RAISE_APPLICATION_ERROR and GET_ERROR_STATUS, and where an error goes:
 * raised during initialisation (no error handler yet) it is handled at
 * partition level (a record in the manager's output, see errors.output);
 * raised by a process in NORMAL mode it activates the error handler, which
 * runs before RAISE_APPLICATION_ERROR returns.  Inside the handler:
 * GET_ERROR_STATUS until NO_ACTION, and the services it may not use.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE p;

static void handler(void)
{
    ERROR_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE id = 0;
    SYSTEM_TIME_TYPE t0 = now_ns();
    memset(&st, 0, sizeof st);
    GET_ERROR_STATUS(&st, &rc);
    TRC("handler: GET_ERROR_STATUS", rc);
    T("handler: %s from p: %s, length %d, message \"%.*s\"", code_name(st.ERROR_CODE),
      st.FAILED_PROCESS_ID == p ? "yes" : "no", (int)st.LENGTH, (int)st.LENGTH,
      (const char *)st.MESSAGE);
    GET_ERROR_STATUS(&st, &rc);
    TRC("handler: GET_ERROR_STATUS (queue empty)", rc);
    GET_MY_ID(&id, &rc);
    TRC("handler: GET_MY_ID", rc);
    TIMED_WAIT(10 * MS, &rc);
    TRC("handler: TIMED_WAIT(10ms)", rc);
    T("handler: did not wait: %s", now_ns() - t0 < 10 * MS ? "yes" : "no");
    LOCK_PREEMPTION(&id, &rc);
    TRC("handler: LOCK_PREEMPTION", rc);
    REPORT_APPLICATION_MESSAGE((MESSAGE_ADDR_TYPE) "handler reports", 15, &rc);
    TRC("handler: REPORT_APPLICATION_MESSAGE", rc);
    T("handler: STOP_SELF");
    STOP_SELF();
}

static void p_main(void)
{
    ERROR_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    GET_ERROR_STATUS(&st, &rc);
    TRC("p: GET_ERROR_STATUS (not the error handler)", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
    TRC("p: CREATE_ERROR_HANDLER again, in NORMAL mode", rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, 0, &rc);
    TRC("p: CONFIGURE_ERROR_HANDLER in NORMAL mode", rc);
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "p fails", 7, &rc);
    TRC("p: RAISE_APPLICATION_ERROR returned", rc);
    end();
}

int main(void)
{
    ERROR_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    static char big[MAX_ERROR_MESSAGE_SIZE + 1];
    memset(big, 'x', sizeof big);

    GET_ERROR_STATUS(&st, &rc);
    TRC("main: GET_ERROR_STATUS", rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, 0, &rc);
    TRC("main: CONFIGURE_ERROR_HANDLER before CREATE_ERROR_HANDLER", rc);

    REPORT_APPLICATION_MESSAGE((MESSAGE_ADDR_TYPE)big, MAX_ERROR_MESSAGE_SIZE, &rc);
    TRC("main: REPORT_APPLICATION_MESSAGE(MAX_ERROR_MESSAGE_SIZE bytes)", rc);
    REPORT_APPLICATION_MESSAGE((MESSAGE_ADDR_TYPE)big, MAX_ERROR_MESSAGE_SIZE + 1, &rc);
    TRC("main: REPORT_APPLICATION_MESSAGE(MAX_ERROR_MESSAGE_SIZE + 1)", rc);
    REPORT_APPLICATION_MESSAGE((MESSAGE_ADDR_TYPE)big, -1, &rc);
    TRC("main: REPORT_APPLICATION_MESSAGE(negative length)", rc);

    RAISE_APPLICATION_ERROR(NUMERIC_ERROR, (MESSAGE_ADDR_TYPE) "x", 1, &rc);
    TRC("main: RAISE_APPLICATION_ERROR(NUMERIC_ERROR)", rc);
    RAISE_APPLICATION_ERROR((ERROR_CODE_TYPE)99, (MESSAGE_ADDR_TYPE) "x", 1, &rc);
    TRC("main: RAISE_APPLICATION_ERROR(code 99)", rc);
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE)big,
                            MAX_ERROR_MESSAGE_SIZE + 1, &rc);
    TRC("main: RAISE_APPLICATION_ERROR(MAX_ERROR_MESSAGE_SIZE + 1)", rc);
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE)big, -1, &rc);
    TRC("main: RAISE_APPLICATION_ERROR(negative length)", rc);
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "init failure", 12, &rc);
    TRC("main: RAISE_APPLICATION_ERROR during initialisation (partition level)", rc);

    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 0, &rc);
    TRC("main: CREATE_ERROR_HANDLER(stack size 0)", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 0x7fffffff, &rc);
    TRC("main: CREATE_ERROR_HANDLER(stack beyond the partition's stack memory)", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)0, 65536, &rc);
    TRC("main: CREATE_ERROR_HANDLER(null entry point)", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
    TRC("main: CREATE_ERROR_HANDLER", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
    TRC("main: CREATE_ERROR_HANDLER again", rc);

    CONFIGURE_ERROR_HANDLER((ERROR_HANDLER_CONCURRENCY_CONTROL_TYPE)7, 0, &rc);
    TRC("main: CONFIGURE_ERROR_HANDLER(bad concurrency control)", rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, 3, &rc);
    TRC("main: CONFIGURE_ERROR_HANDLER(core 3, not assigned)", rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, CORE_AFFINITY_NO_PREFERENCE, &rc);
    TRC("main: CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, NO_PREFERENCE)", rc);

    p = mkproc("p", p_main, 10);
    start(p);
    go_normal();
    return 0;
}
