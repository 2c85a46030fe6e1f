/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * stop_self_reuse.c - STOP_SELF in the middle of a body, many times over, must not cost a
 * thread each time: the error handler ends every activation with STOP_SELF (the standard's
 * usual pattern), and a process STOP_SELFs from deep inside its body and is STARTed again.
 * Before the runtime took such threads back to the top of their loop, each STOP_SELF left a
 * parked thread behind, and a partition reached its task limit after about 124 of them.
 *
 * Standalone (tests/c_stop_self.rs compares the trace). Runs 1000 activations of each and
 * prints how many threads the process has before and after (from /proc/self/task).
 */
#include "ARINC653.h"

#include <dirent.h>
#include <stdio.h>

#define ROUNDS 1000

static PROCESS_ID_TYPE driver_id, diver_id;
static int handled, activations, dives, dive_bottoms;

static int threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static void handler_main(void)
{
    RETURN_CODE_TYPE rc;
    ERROR_STATUS_TYPE st;
    activations++;
    for (;;) {
        GET_ERROR_STATUS(&st, &rc);
        if (rc != NO_ERROR)
            break;
        handled++;
    }
    STOP_SELF();
    printf("handler: STOP_SELF returned (must not happen)\n");
}

/* Recurses, then STOP_SELF from the bottom: the frames above are discarded. */
static void dive(int depth)
{
    volatile char frame[256];
    frame[0] = (char)depth;
    if (depth > 0) {
        dive(depth - 1);
        printf("diver: unwound through a frame %d (must not happen)\n", frame[0]);
        return;
    }
    dive_bottoms++;
    STOP_SELF();
    printf("diver: STOP_SELF returned (must not happen)\n");
}

static void diver_main(void)
{
    dives++;
    dive(20);
}

static void driver_main(void)
{
    RETURN_CODE_TYPE rc, raised = NO_ERROR, started = NO_ERROR;
    int before = threads();
    for (int i = 0; i < ROUNDS; i++) {
        RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE)"tick", 4, &rc);
        if (rc != NO_ERROR)
            raised = rc;
        /* The diver is above the driver: START runs it to its STOP_SELF at once. */
        START(diver_id, &rc);
        if (rc != NO_ERROR)
            started = rc;
    }
    int after = threads();
    printf("driver: %d rounds: RAISE_APPLICATION_ERROR %s, START %s\n", ROUNDS,
           raised == NO_ERROR ? "NO_ERROR" : "failed", started == NO_ERROR ? "NO_ERROR" : "failed");
    printf("driver: handler activations %d, errors handled %d\n", activations, handled);
    printf("driver: diver runs %d, reached the bottom %d\n", dives, dive_bottoms);
    printf("driver: threads grew by %d\n", after - before);
    PROCESS_STATUS_TYPE ps;
    GET_PROCESS_STATUS(diver_id, &ps, &rc);
    printf("driver: diver %s\n", ps.PROCESS_STATE == DORMANT ? "DORMANT" : "not DORMANT");
    fflush(stdout);
    SET_PARTITION_MODE(IDLE, &rc);
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a = {0};

    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler_main, 65536, &rc);
    if (rc != NO_ERROR)
        printf("main: CREATE_ERROR_HANDLER -> %d\n", (int)rc);
    a.PERIOD = INFINITE_TIME_VALUE;
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.STACK_SIZE = 65536;
    a.DEADLINE = SOFT;
    a.BASE_PRIORITY = 10;
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)driver_main;
    snprintf(a.NAME, sizeof a.NAME, "driver");
    CREATE_PROCESS(&a, &driver_id, &rc);
    if (rc != NO_ERROR)
        printf("main: CREATE_PROCESS(driver) -> %d\n", (int)rc);
    a.BASE_PRIORITY = 20;
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)diver_main;
    snprintf(a.NAME, sizeof a.NAME, "diver");
    CREATE_PROCESS(&a, &diver_id, &rc);
    if (rc != NO_ERROR)
        printf("main: CREATE_PROCESS(diver) -> %d\n", (int)rc);
    START(driver_id, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    printf("main: SET_PARTITION_MODE(NORMAL) returned %d\n", (int)rc);
    return 1;
}
