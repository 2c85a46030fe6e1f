/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * conformance.h - helpers shared by the APEX conformance scenarios.
 *
 * Every scenario is a C partition that prints an event trace, one event per
 * line prefixed "T ", which crates/cli/tests/conformance.rs compares with
 * <scenario>.expected.  Lines are written with one write(2) each (no stdio
 * buffer: a partition never exits, and a stopped process must not hold the
 * stdio lock), so they reach the manager in the order they were produced.
 *
 * Determinism: the order of the events must follow from the priorities and
 * the ordering rules of the standard only.  Where time matters, the margins
 * are tens of milliseconds and the trace prints predicates ("yes"/"no"),
 * never raw times.
 */
#ifndef PARTITA_CONFORMANCE_H
#define PARTITA_CONFORMANCE_H

#include <ARINC653.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000LL

static inline const char *rc_name(RETURN_CODE_TYPE rc)
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

static inline const char *state_name(PROCESS_STATE_TYPE s)
{
    switch (s) {
    case DORMANT: return "DORMANT";
    case READY: return "READY";
    case RUNNING: return "RUNNING";
    case WAITING: return "WAITING";
    }
    return "?";
}

static inline const char *code_name(ERROR_CODE_TYPE c)
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

static inline const char *mode_name(OPERATING_MODE_TYPE m)
{
    switch (m) {
    case IDLE: return "IDLE";
    case COLD_START: return "COLD_START";
    case WARM_START: return "WARM_START";
    case NORMAL: return "NORMAL";
    }
    return "?";
}

/* One trace event: "T <formatted text>\n" in a single write. */
static inline void T(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void T(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n;
    line[0] = 'T';
    line[1] = ' ';
    va_start(ap, fmt);
    n = vsnprintf(line + 2, sizeof line - 3, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if (n > (int)sizeof line - 3)
        n = (int)sizeof line - 3;
    line[2 + n] = '\n';
    (void)!write(1, line, (size_t)n + 3);
}

/* "<what> -> <rc>" */
#define TRC(what, rc) T("%s -> %s", what, rc_name(rc))

/* A NUL-padded NAME_TYPE holding `s` (the APEX name parameters are arrays). */
static inline char *N(const char *s)
{
    static NAME_TYPE ring[8];
    static int next;
    char *n = ring[next++ % 8];
    size_t len = strlen(s);
    memset(n, 0, MAX_NAME_LENGTH);
    memcpy(n, s, len < MAX_NAME_LENGTH ? len : MAX_NAME_LENGTH);
    return n;
}

static inline SYSTEM_TIME_TYPE now_ns(void)
{
    SYSTEM_TIME_TYPE t = 0;
    RETURN_CODE_TYPE rc;
    GET_TIME(&t, &rc);
    return t;
}

/* Busy-waits (without any APEX wait) for `ns` of elapsed time. */
static inline void busy_ns(SYSTEM_TIME_TYPE ns)
{
    SYSTEM_TIME_TYPE end = now_ns() + ns;
    while (now_ns() < end) {
    }
}

static inline PROCESS_ATTRIBUTE_TYPE attrs(const char *name, void (*entry)(void),
                                           PRIORITY_TYPE prio)
{
    PROCESS_ATTRIBUTE_TYPE a;
    memset(&a, 0, sizeof a);
    memcpy(a.NAME, N(name), sizeof a.NAME);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)entry;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = prio;
    a.PERIOD = INFINITE_TIME_VALUE;
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.DEADLINE = SOFT;
    return a;
}

/* Creates an aperiodic process; a failure is traced (and breaks the test). */
static inline PROCESS_ID_TYPE mkproc(const char *name, void (*entry)(void), PRIORITY_TYPE prio)
{
    PROCESS_ATTRIBUTE_TYPE a = attrs(name, entry, prio);
    PROCESS_ID_TYPE pid = 0;
    RETURN_CODE_TYPE rc;
    CREATE_PROCESS(&a, &pid, &rc);
    if (rc != NO_ERROR)
        T("setup: CREATE_PROCESS %s -> %s", name, rc_name(rc));
    return pid;
}

static inline void start(PROCESS_ID_TYPE pid)
{
    RETURN_CODE_TYPE rc;
    START(pid, &rc);
    if (rc != NO_ERROR)
        T("setup: START %d -> %s", (int)pid, rc_name(rc));
}

static inline SEMAPHORE_ID_TYPE mksem(const char *name, int value, int max,
                                      QUEUING_DISCIPLINE_TYPE d)
{
    SEMAPHORE_ID_TYPE id = 0;
    RETURN_CODE_TYPE rc;
    CREATE_SEMAPHORE(N(name), value, max, d, &id, &rc);
    if (rc != NO_ERROR)
        T("setup: CREATE_SEMAPHORE %s -> %s", name, rc_name(rc));
    return id;
}

static inline EVENT_ID_TYPE mkevent(const char *name)
{
    EVENT_ID_TYPE id = 0;
    RETURN_CODE_TYPE rc;
    CREATE_EVENT(N(name), &id, &rc);
    if (rc != NO_ERROR)
        T("setup: CREATE_EVENT %s -> %s", name, rc_name(rc));
    return id;
}

static inline PROCESS_STATE_TYPE state_of(PROCESS_ID_TYPE pid)
{
    PROCESS_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    memset(&st, 0, sizeof st);
    GET_PROCESS_STATUS(pid, &st, &rc);
    return st.PROCESS_STATE;
}

static inline PRIORITY_TYPE prio_of(PROCESS_ID_TYPE pid)
{
    PROCESS_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    memset(&st, 0, sizeof st);
    GET_PROCESS_STATUS(pid, &st, &rc);
    return st.CURRENT_PRIORITY;
}

/* Enters NORMAL mode (does not return when it succeeds). */
static inline void go_normal(void)
{
    RETURN_CODE_TYPE rc;
    SET_PARTITION_MODE(NORMAL, &rc);
    T("setup: SET_PARTITION_MODE(NORMAL) returned %s", rc_name(rc));
}

/* The last event of a scenario; the caller then stops for good. */
static inline void end(void)
{
    T("end");
    STOP_SELF();
}

#endif
