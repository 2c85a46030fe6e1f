/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* What the two APEX partitions of the cohost example share: the STATUS message and how they
 * start their periodic process. */
#ifndef COHOST_H
#define COHOST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>

/* STATUS (sampling, control -> monitor): the control loop's cycle count and its latest
 * release lateness. */
struct status_msg {
    uint64_t cycle;
    int64_t lateness_ns;
};

/* Creates and starts the partition's one periodic process `name` running `entry` (HARD
 * deadline: its time capacity is the partition's window time per period), then enters
 * NORMAL. Returns only on failure (status 1, the failing service printed as `who: ...`). */
static inline int run_periodic(const char *who, const char *name, void (*entry)(void))
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE status;
    GET_PARTITION_STATUS(&status, &rc);
    PROCESS_ATTRIBUTE_TYPE attr;
    memset(&attr, 0, sizeof attr);
    strncpy(attr.NAME, name, sizeof attr.NAME - 1);
    attr.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)entry;
    attr.STACK_SIZE = 64 * 1024;
    attr.BASE_PRIORITY = 10;
    attr.PERIOD = status.PERIOD;
    attr.TIME_CAPACITY = status.DURATION;
    attr.DEADLINE = HARD;
    PROCESS_ID_TYPE pid;
    CREATE_PROCESS(&attr, &pid, &rc);
    if (rc != NO_ERROR) {
        printf("%s: CREATE_PROCESS failed: %d\n", who, (int)rc);
        return 1;
    }
    START(pid, &rc);
    if (rc != NO_ERROR) {
        printf("%s: START failed: %d\n", who, (int)rc);
        return 1;
    }
    SET_PARTITION_MODE(NORMAL, &rc);
    printf("%s: SET_PARTITION_MODE returned %d\n", who, (int)rc);
    return 1;
}

#endif
