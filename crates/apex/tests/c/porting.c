/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Partition code in the style of other APEX implementations' examples: string literals for
 * name parameters, memset/strncpy on NAME_TYPE fields and size_t without including <string.h>
 * or <stddef.h> (the APEX header provides them), SUSPEND_SELF(0) from a process and from the
 * main process. Compiled with -Wall -Wextra -Werror as C and C++ (tests/porting.rs); run
 * standalone, it prints the trace the test expects. */
#include <ARINC653.h>
#include <stdio.h>
#include <stdlib.h>

static const char *rc_name(RETURN_CODE_TYPE rc)
{
    static const char *const names[] = {"NO_ERROR",       "NO_ACTION",    "NOT_AVAILABLE",
                                        "INVALID_PARAM",  "INVALID_CONFIG", "INVALID_MODE",
                                        "TIMED_OUT"};
    return (unsigned)rc < sizeof names / sizeof names[0] ? names[rc] : "?";
}

static void worker(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE me = -1;
    SEMAPHORE_ID_TYPE sem = -1;
    BUFFER_ID_TYPE buf = -1;

    /* The standard: a zero time-out returns at once with NO_ERROR (no suspension, no yield). */
    SUSPEND_SELF(0, &rc);
    printf("worker: SUSPEND_SELF(0) -> %s\n", rc_name(rc));
    GET_PROCESS_ID("worker", &me, &rc);
    printf("worker: GET_PROCESS_ID(\"worker\") -> %s id=%d\n", rc_name(rc), (int)me);
    GET_SEMAPHORE_ID("sem", &sem, &rc);
    printf("worker: GET_SEMAPHORE_ID(\"sem\") -> %s id=%d\n", rc_name(rc), (int)sem);
    GET_BUFFER_ID("buf", &buf, &rc);
    printf("worker: GET_BUFFER_ID(\"buf\") -> %s id=%d\n", rc_name(rc), (int)buf);
    fflush(stdout);
    exit(0);
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE attr;
    PROCESS_ID_TYPE pid = -1;
    SEMAPHORE_ID_TYPE sem = -1;
    EVENT_ID_TYPE evt = -1;
    BUFFER_ID_TYPE buf = -1;
    BLACKBOARD_ID_TYPE bb = -1;
    size_t name_len = sizeof(NAME_TYPE);

    memset(&attr, 0, sizeof(attr));
    strncpy(attr.NAME, "worker", sizeof(attr.NAME));
    attr.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)worker;
    attr.STACK_SIZE = 65536;
    attr.BASE_PRIORITY = 10;
    attr.PERIOD = INFINITE_TIME_VALUE;
    attr.TIME_CAPACITY = INFINITE_TIME_VALUE;
    attr.DEADLINE = SOFT;
    CREATE_PROCESS(&attr, &pid, &rc);
    printf("main: CREATE_PROCESS(worker) -> %s id=%d\n", rc_name(rc), (int)pid);
    /* The main process is not a process SUSPEND_SELF may suspend, time-out or not. */
    SUSPEND_SELF(0, &rc);
    printf("main: SUSPEND_SELF(0) -> %s\n", rc_name(rc));
    CREATE_SEMAPHORE("sem", 0, 1, FIFO, &sem, &rc);
    printf("main: CREATE_SEMAPHORE(\"sem\") -> %s id=%d\n", rc_name(rc), (int)sem);
    CREATE_EVENT("evt", &evt, &rc);
    printf("main: CREATE_EVENT(\"evt\") -> %s id=%d\n", rc_name(rc), (int)evt);
    CREATE_BUFFER("buf", 16, 4, FIFO, &buf, &rc);
    printf("main: CREATE_BUFFER(\"buf\") -> %s id=%d\n", rc_name(rc), (int)buf);
    CREATE_BLACKBOARD("bb", 16, &bb, &rc);
    printf("main: CREATE_BLACKBOARD(\"bb\") -> %s id=%d\n", rc_name(rc), (int)bb);
    printf("main: sizeof(NAME_TYPE) = %d\n", (int)name_len);
    START(pid, &rc);
    printf("main: START(worker) -> %s\n", rc_name(rc));
    fflush(stdout);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
