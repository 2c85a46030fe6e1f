/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Messages exchanged by the partitions of the flagship example (see README.md). Both ends of
 * a channel are built from this header, so the layouts agree. */
#ifndef FLAGSHIP_H
#define FLAGSHIP_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>

/* A NAME_TYPE argument from a string literal (APEX names are 30-byte arrays). */
#define APEX_NAME(s) ((char[sizeof(NAME_TYPE)]){s})

/* ATTITUDE sampling port, fcs -> nav, 25 Hz. */
typedef struct {
    int64_t time_ns;   /* GET_TIME when the attitude was sensed */
    uint32_t seq;      /* publication number, from 1 */
    float roll, pitch, yaw; /* degrees */
    float heading_cmd; /* heading set-point being tracked, degrees */
} attitude_msg;

/* NAV_CMD queuing port, nav -> fcs: a new heading set-point. */
typedef struct {
    uint32_t waypoint; /* from 1 */
    float heading;     /* degrees, 0..360 */
} nav_cmd_msg;

static inline SYSTEM_TIME_TYPE flagship_now(void)
{
    SYSTEM_TIME_TYPE t;
    RETURN_CODE_TYPE rc;
    GET_TIME(&t, &rc);
    return t;
}

/* Creates and starts an APEX process; prints and returns 0 on failure. */
static inline PROCESS_ID_TYPE flagship_process(const char *who, const char *name,
                                               void (*entry)(void), SYSTEM_TIME_TYPE period,
                                               SYSTEM_TIME_TYPE capacity, DEADLINE_TYPE kind,
                                               PRIORITY_TYPE prio)
{
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid = 0;
    RETURN_CODE_TYPE rc;
    memset(&a, 0, sizeof a);
    strncpy(a.NAME, name, sizeof a.NAME - 1);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)entry;
    a.STACK_SIZE = 64 * 1024;
    a.BASE_PRIORITY = prio;
    a.PERIOD = period;
    a.TIME_CAPACITY = capacity;
    a.DEADLINE = kind;
    CREATE_PROCESS(&a, &pid, &rc);
    if (rc != NO_ERROR) {
        printf("%s: CREATE_PROCESS(%s) failed: %d\n", who, name, (int)rc);
        return 0;
    }
    START(pid, &rc);
    if (rc != NO_ERROR) {
        printf("%s: START(%s) failed: %d\n", who, name, (int)rc);
        return 0;
    }
    return pid;
}

static inline const char *flagship_code(ERROR_CODE_TYPE c)
{
    static const char *names[] = {"DEADLINE_MISSED", "APPLICATION_ERROR", "NUMERIC_ERROR",
                                  "ILLEGAL_REQUEST", "STACK_OVERFLOW",    "MEMORY_VIOLATION",
                                  "HARDWARE_FAULT",  "POWER_FAIL"};
    return (unsigned)c < 8 ? names[c] : "?";
}
#endif
