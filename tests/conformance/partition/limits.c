/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * partition/limits - exhausting the partition's resources returns
 * INVALID_CONFIG and never crashes: 64 semaphores / events / mutexes (the
 * default limit), more buffer and blackboard message memory than the
 * partition has (1 MiB by default), a process stack beyond the partition's
 * stack memory (64 MiB by default), more processes than allowed (64).  What
 * was created before stays usable.
 */
#include "../conformance.h"

static void noop(void) { STOP_SELF(); }

int main(void)
{
    RETURN_CODE_TYPE rc = NO_ERROR;
    char name[32];
    int n;
    SEMAPHORE_ID_TYPE s = 0;
    EVENT_ID_TYPE e = 0;
    MUTEX_ID_TYPE m = 0;
    BUFFER_ID_TYPE b = 0;
    BLACKBOARD_ID_TYPE bb = 0;
    PROCESS_ID_TYPE p = 0;

    for (n = 0; n < 1000; n++) {
        snprintf(name, sizeof name, "s%d", n);
        CREATE_SEMAPHORE(N(name), 0, 1, FIFO, &s, &rc);
        if (rc != NO_ERROR)
            break;
    }
    T("main: CREATE_SEMAPHORE #%d -> %s", n + 1, rc_name(rc));
    for (n = 0; n < 1000; n++) {
        snprintf(name, sizeof name, "e%d", n);
        CREATE_EVENT(N(name), &e, &rc);
        if (rc != NO_ERROR)
            break;
    }
    T("main: CREATE_EVENT #%d -> %s", n + 1, rc_name(rc));
    for (n = 0; n < 1000; n++) {
        snprintf(name, sizeof name, "m%d", n);
        CREATE_MUTEX(N(name), 10, FIFO, &m, &rc);
        if (rc != NO_ERROR)
            break;
    }
    T("main: CREATE_MUTEX #%d -> %s", n + 1, rc_name(rc));

    CREATE_BUFFER(N("big"), 65536, 32, FIFO, &b, &rc);
    TRC("main: CREATE_BUFFER(64 KiB x 32 = 2 MiB of messages)", rc);
    CREATE_BUFFER(N("small"), 64, 4, FIFO, &b, &rc);
    TRC("main: CREATE_BUFFER(64 B x 4)", rc);
    CREATE_BLACKBOARD(N("huge"), 2 * 1024 * 1024, &bb, &rc);
    TRC("main: CREATE_BLACKBOARD(2 MiB)", rc);

    PROCESS_ATTRIBUTE_TYPE a = attrs("fat", noop, 10);
    a.STACK_SIZE = 0x7fffffff;
    CREATE_PROCESS(&a, &p, &rc);
    TRC("main: CREATE_PROCESS(stack 2 GiB)", rc);
    for (n = 0; n < 1000; n++) {
        snprintf(name, sizeof name, "p%d", n);
        a = attrs(name, noop, 10);
        a.STACK_SIZE = 16384;
        CREATE_PROCESS(&a, &p, &rc);
        if (rc != NO_ERROR)
            break;
    }
    T("main: CREATE_PROCESS #%d -> %s", n + 1, rc_name(rc));

    SEMAPHORE_STATUS_TYPE ss;
    SIGNAL_SEMAPHORE(s, &rc);
    TRC("main: SIGNAL_SEMAPHORE(the 64th semaphore)", rc);
    GET_SEMAPHORE_STATUS(s, &ss, &rc);
    T("main: GET_SEMAPHORE_STATUS -> %s value %d", rc_name(rc), (int)ss.CURRENT_VALUE);
    SEND_BUFFER(b, (MESSAGE_ADDR_TYPE) "ok", 2, 0, &rc);
    TRC("main: SEND_BUFFER(small)", rc);
    T("end");
    go_normal();
    return 0;
}
