/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * hm.c - exercises the process-level health monitoring of the C binding
 * (CREATE_ERROR_HANDLER, CONFIGURE_ERROR_HANDLER, RAISE_APPLICATION_ERROR,
 * GET_ERROR_STATUS) and the hardware fault path (an integer division by zero
 * in a process) against the real runtime, standalone.
 *
 * It prints a trace that tests/c_hm.rs compares with the expected one; every
 * print comes from the runner the priorities designate: the error handler is
 * above every process and runs before RAISE_APPLICATION_ERROR returns.
 *
 * Processes: worker (10) drives the test; faulty (20) divides by zero on its
 * first run. The handler prints what GET_ERROR_STATUS returns; for a
 * NUMERIC_ERROR it STOPs and re-STARTs the failed process.
 */
#include "ARINC653.h"

#include <stdio.h>
#include <string.h>

static const char *rc_name(RETURN_CODE_TYPE rc)
{
    switch (rc) {
    case NO_ERROR: return "NO_ERROR";
    case NO_ACTION: return "NO_ACTION";
    case NOT_AVAILABLE: return "NOT_AVAILABLE";
    case INVALID_PARAM: return "INVALID_PARAM";
    case INVALID_CONFIG: return "INVALID_CONFIG";
    case INVALID_MODE: return "INVALID_MODE";
    case TIMED_OUT: return "TIMED_OUT";
    }
    return "?";
}

static const char *code_name(ERROR_CODE_TYPE c)
{
    switch (c) {
    case DEADLINE_MISSED: return "DEADLINE_MISSED";
    case APPLICATION_ERROR: return "APPLICATION_ERROR";
    case NUMERIC_ERROR: return "NUMERIC_ERROR";
    case ILLEGAL_REQUEST: return "ILLEGAL_REQUEST";
    case STACK_OVERFLOW: return "STACK_OVERFLOW";
    case MEMORY_VIOLATION: return "MEMORY_VIOLATION";
    case HARDWARE_FAULT: return "HARDWARE_FAULT";
    case POWER_FAIL: return "POWER_FAIL";
    }
    return "?";
}

static const char *state_name(PROCESS_STATE_TYPE s)
{
    switch (s) {
    case DORMANT: return "DORMANT";
    case READY: return "READY";
    case RUNNING: return "RUNNING";
    case WAITING: return "WAITING";
    }
    return "?";
}

#define TN(who, what, rc) printf("%s: %s -> %s\n", who, what, rc_name(rc))

static PROCESS_ID_TYPE worker_id, faulty_id;
static int faulty_runs, handler_runs;
static volatile int zero;
static volatile int sink;

static void handler_main(void);
static void worker_main(void);
static void faulty_main(void);

/* Reads every pending error; returns the last one read. */
static ERROR_STATUS_TYPE drain_errors(void)
{
    ERROR_STATUS_TYPE last, st;
    RETURN_CODE_TYPE rc;
    memset(&last, 0, sizeof last);
    for (;;) {
        memset(&st, 0, sizeof st);
        st.FAILED_PROCESS_ID = -77;
        GET_ERROR_STATUS(&st, &rc);
        if (rc != NO_ERROR) {
            printf("handler: GET_ERROR_STATUS -> %s failed=%d (unchanged)\n",
                   rc_name(rc), (int)st.FAILED_PROCESS_ID);
            return last;
        }
        printf("handler: GET_ERROR_STATUS -> NO_ERROR code=%s failed=%d "
               "length=%d message='%.*s' address=%s\n",
               code_name(st.ERROR_CODE), (int)st.FAILED_PROCESS_ID,
               (int)st.LENGTH, (int)st.LENGTH, (const char *)st.MESSAGE,
               st.FAILED_ADDRESS ? "set" : "null");
        last = st;
    }
}

static void handler_main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE id = -77;
    ERROR_STATUS_TYPE e;

    handler_runs++;
    printf("handler: entry (activation %d)\n", handler_runs);
    GET_MY_ID(&id, &rc);
    printf("handler: GET_MY_ID -> %s id=%d (unchanged)\n", rc_name(rc), (int)id);
    TIMED_WAIT(1000000, &rc);
    TN("handler", "TIMED_WAIT(1 ms)", rc);

    e = drain_errors();
    if (e.ERROR_CODE == NUMERIC_ERROR && e.FAILED_PROCESS_ID == faulty_id) {
        STOP(faulty_id, &rc);
        TN("handler", "STOP(faulty)", rc);
        START(faulty_id, &rc);
        TN("handler", "START(faulty)", rc);
    }
    if (handler_runs == 1) {
        /* The error handler failing is handled at partition level. */
        RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE)"handler error", 13,
                                &rc);
        TN("handler", "RAISE_APPLICATION_ERROR (partition level)", rc);
        printf("handler: STOP_SELF\n");
        STOP_SELF();
        printf("handler: STOP_SELF returned (must not happen)\n");
    }
    printf("handler: return\n");
}

static void faulty_main(void)
{
    faulty_runs++;
    printf("faulty: entry (run %d)\n", faulty_runs);
    if (faulty_runs == 1) {
        sink = 100 / zero; /* SIGFPE */
        printf("faulty: survived a division by zero (must not happen)\n");
    }
    printf("faulty: return\n");
}

static void worker_main(void)
{
    const char *me = "worker";
    RETURN_CODE_TYPE rc;
    ERROR_STATUS_TYPE st;
    PROCESS_STATUS_TYPE ps;
    APEX_BYTE big[MAX_ERROR_MESSAGE_SIZE + 1];

    printf("worker: entry\n");
    memset(&st, 0, sizeof st);
    st.FAILED_PROCESS_ID = -77;
    GET_ERROR_STATUS(&st, &rc);
    printf("worker: GET_ERROR_STATUS -> %s failed=%d (unchanged)\n", rc_name(rc),
           (int)st.FAILED_PROCESS_ID);

    RAISE_APPLICATION_ERROR(NUMERIC_ERROR, (MESSAGE_ADDR_TYPE)"x", 1, &rc);
    TN(me, "RAISE_APPLICATION_ERROR(NUMERIC_ERROR)", rc);
    memset(big, 'b', sizeof big);
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, big, sizeof big, &rc);
    TN(me, "RAISE_APPLICATION_ERROR(129 bytes)", rc);
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, NULL, 4, &rc);
    TN(me, "RAISE_APPLICATION_ERROR(NULL, 4)", rc);

    printf("worker: RAISE_APPLICATION_ERROR(sensor out of range)\n");
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE)"sensor out of range", 19,
                            &rc);
    TN(me, "RAISE_APPLICATION_ERROR returned", rc);

    printf("worker: START(faulty)\n");
    START(faulty_id, &rc);
    TN(me, "START(faulty) returned", rc);
    memset(&ps, 0, sizeof ps);
    GET_PROCESS_STATUS(faulty_id, &ps, &rc);
    printf("worker: GET_PROCESS_STATUS(faulty) -> %s state=%s runs=%d\n", rc_name(rc),
           state_name(ps.PROCESS_STATE), faulty_runs);

    printf("worker: done (handler activations %d)\n", handler_runs);
    fflush(stdout);
    SET_PARTITION_MODE(IDLE, &rc);
    printf("worker: SET_PARTITION_MODE(IDLE) returned %s\n", rc_name(rc));
}

int main(void)
{
    const char *me = "main";
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    ERROR_STATUS_TYPE st;

    GET_ERROR_STATUS(&st, &rc);
    TN(me, "GET_ERROR_STATUS", rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, 0, &rc);
    TN(me, "CONFIGURE_ERROR_HANDLER (no handler)", rc);
    CREATE_ERROR_HANDLER(NULL, 65536, &rc);
    TN(me, "CREATE_ERROR_HANDLER(NULL)", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler_main, 0, &rc);
    TN(me, "CREATE_ERROR_HANDLER(stack 0)", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler_main, 0xFFFFFFFFu, &rc);
    TN(me, "CREATE_ERROR_HANDLER(stack 4 GiB)", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler_main, 65536, &rc);
    TN(me, "CREATE_ERROR_HANDLER", rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler_main, 65536, &rc);
    TN(me, "CREATE_ERROR_HANDLER (again)", rc);
    CONFIGURE_ERROR_HANDLER(7, 0, &rc);
    TN(me, "CONFIGURE_ERROR_HANDLER(concurrency 7)", rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_SCHEDULED, 3, &rc);
    TN(me, "CONFIGURE_ERROR_HANDLER(core 3)", rc);
    CONFIGURE_ERROR_HANDLER(PROCESSES_PAUSE, CORE_AFFINITY_NO_PREFERENCE, &rc);
    TN(me, "CONFIGURE_ERROR_HANDLER(PROCESSES_PAUSE, NO_PREFERENCE)", rc);
    GET_ERROR_STATUS(&st, &rc);
    TN(me, "GET_ERROR_STATUS", rc);

    /* During initialisation an error is handled at partition level. */
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE)"init error", 10, &rc);
    TN(me, "RAISE_APPLICATION_ERROR (partition level)", rc);

    memset(&a, 0, sizeof a);
    a.PERIOD = INFINITE_TIME_VALUE;
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.STACK_SIZE = 65536;
    a.DEADLINE = SOFT;
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)worker_main;
    a.BASE_PRIORITY = 10;
    strncpy(a.NAME, "worker", MAX_NAME_LENGTH);
    CREATE_PROCESS(&a, &worker_id, &rc);
    printf("main: CREATE_PROCESS(worker) -> %s id=%d\n", rc_name(rc), (int)worker_id);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)faulty_main;
    a.BASE_PRIORITY = 20;
    memset(a.NAME, 0, MAX_NAME_LENGTH);
    strncpy(a.NAME, "faulty", MAX_NAME_LENGTH);
    CREATE_PROCESS(&a, &faulty_id, &rc);
    printf("main: CREATE_PROCESS(faulty) -> %s id=%d\n", rc_name(rc), (int)faulty_id);

    START(worker_id, &rc);
    TN(me, "START(worker)", rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    TN(me, "SET_PARTITION_MODE(NORMAL) returned", rc);
    return 1;
}
