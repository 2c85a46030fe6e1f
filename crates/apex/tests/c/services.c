/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * services.c - exercises the C binding of the APEX services (nominal path and
 * error codes) against the real runtime, standalone (no partition manager).
 *
 * It prints a trace that tests/c_services.rs compares with the expected one,
 * so the trace must be deterministic: every print comes from the process that
 * the priorities designate, and whenever a time-out or a release is pending
 * every other process waits indefinitely (standalone, the runtime has no
 * SCHED_FIFO to stop a preempted thread at once).
 *
 * Processes: ctl (50) drives the test; high (90) and per (periodic, 80) are
 * started by ctl; low (10) checks that STOP + START begins at the entry point.
 */
#include "ARINC653.h"

#include <stdio.h>
#include <string.h>

#define MS 1000000LL

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

/*
 * A NAME_TYPE holding `s` (NUL padded): the name parameters are NAME_TYPE
 * arrays, so callers pass a full 30-byte array, not a short literal.
 */
static char *N(const char *s)
{
    static NAME_TYPE ring[4];
    static int next;
    char *n = ring[next++ % 4];
    memset(n, 0, MAX_NAME_LENGTH);
    strncpy(n, s, MAX_NAME_LENGTH);
    return n;
}

/* Prints "<who>: <what> -> <rc>" followed by the rest of the line. */
#define T(who, what, rc) printf("%s: %s -> %s", who, what, rc_name(rc))
#define TN(who, what, rc) printf("%s: %s -> %s\n", who, what, rc_name(rc))

static PROCESS_ID_TYPE ctl_id, high_id, low_id, per_id;
static SEMAPHORE_ID_TYPE sem_id, ctl_go, low_go, per_go;
static EVENT_ID_TYPE evt_id;
static BUFFER_ID_TYPE buf_id;
static BLACKBOARD_ID_TYPE bb_id;
static MUTEX_ID_TYPE mtx_id;
static int low_entries, per_entries;

static void ctl_main(void);
static void high_main(void);
static void low_main(void);
static void per_main(void);

static void show_status(const char *who, PROCESS_ID_TYPE pid)
{
    PROCESS_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    memset(&st, 0, sizeof st);
    GET_PROCESS_STATUS(pid, &st, &rc);
    printf("%s: GET_PROCESS_STATUS(%d) -> %s state=%s prio=%d name=%.30s base=%d "
           "period=%lld capacity=%lld deadline=%lld stack=%u\n",
           who, (int)pid, rc_name(rc), state_name(st.PROCESS_STATE),
           (int)st.CURRENT_PRIORITY, st.ATTRIBUTES.NAME,
           (int)st.ATTRIBUTES.BASE_PRIORITY, (long long)st.ATTRIBUTES.PERIOD,
           (long long)st.ATTRIBUTES.TIME_CAPACITY, (long long)st.DEADLINE_TIME,
           (unsigned)st.ATTRIBUTES.STACK_SIZE);
}

static void show_sem(const char *who, SEMAPHORE_ID_TYPE id)
{
    SEMAPHORE_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    GET_SEMAPHORE_STATUS(id, &st, &rc);
    T(who, "GET_SEMAPHORE_STATUS", rc);
    printf(" value=%d max=%d waiting=%d\n", (int)st.CURRENT_VALUE,
           (int)st.MAXIMUM_VALUE, (int)st.WAITING_PROCESSES);
}

static void show_event(const char *who)
{
    EVENT_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    GET_EVENT_STATUS(evt_id, &st, &rc);
    T(who, "GET_EVENT_STATUS", rc);
    printf(" state=%s waiting=%d\n", st.EVENT_STATE == UP ? "UP" : "DOWN",
           (int)st.WAITING_PROCESSES);
}

static void show_buffer(const char *who)
{
    BUFFER_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    GET_BUFFER_STATUS(buf_id, &st, &rc);
    T(who, "GET_BUFFER_STATUS", rc);
    printf(" nb=%d max_nb=%d size=%d waiting=%d\n", (int)st.NB_MESSAGE,
           (int)st.MAX_NB_MESSAGE, (int)st.MAX_MESSAGE_SIZE,
           (int)st.WAITING_PROCESSES);
}

static void show_blackboard(const char *who)
{
    BLACKBOARD_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    GET_BLACKBOARD_STATUS(bb_id, &st, &rc);
    T(who, "GET_BLACKBOARD_STATUS", rc);
    printf(" %s size=%d waiting=%d\n",
           st.EMPTY_INDICATOR == EMPTY ? "EMPTY" : "OCCUPIED",
           (int)st.MAX_MESSAGE_SIZE, (int)st.WAITING_PROCESSES);
}

static void show_mutex(const char *who)
{
    MUTEX_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    GET_MUTEX_STATUS(mtx_id, &st, &rc);
    T(who, "GET_MUTEX_STATUS", rc);
    printf(" owner=%d %s prio=%d count=%d waiting=%d\n", (int)st.MUTEX_OWNER,
           st.MUTEX_STATE == OWNED ? "OWNED" : "AVAILABLE",
           (int)st.MUTEX_PRIORITY, (int)st.LOCK_COUNT,
           (int)st.WAITING_PROCESSES);
}

static void show_mutex_state(const char *who, PROCESS_ID_TYPE pid)
{
    MUTEX_ID_TYPE m = 12345;
    RETURN_CODE_TYPE rc;
    GET_PROCESS_MUTEX_STATE(pid, &m, &rc);
    T(who, "GET_PROCESS_MUTEX_STATE", rc);
    printf(" mutex=%d\n", (int)m);
}

static void receive(const char *who, SYSTEM_TIME_TYPE timeout)
{
    APEX_BYTE msg[16];
    MESSAGE_SIZE_TYPE len = -1;
    RETURN_CODE_TYPE rc;
    memset(msg, 0, sizeof msg);
    RECEIVE_BUFFER(buf_id, timeout, msg, &len, &rc);
    T(who, "RECEIVE_BUFFER", rc);
    printf(" len=%d '%.*s'\n", (int)len, len > 0 ? (int)len : 0, (const char *)msg);
}

static void read_bb(const char *who, SYSTEM_TIME_TYPE timeout)
{
    APEX_BYTE msg[16];
    MESSAGE_SIZE_TYPE len = -1;
    RETURN_CODE_TYPE rc;
    memset(msg, 0, sizeof msg);
    READ_BLACKBOARD(bb_id, timeout, msg, &len, &rc);
    T(who, "READ_BLACKBOARD", rc);
    printf(" len=%d '%.*s'\n", (int)len, len > 0 ? (int)len : 0, (const char *)msg);
}

static void send(const char *who, const char *text, MESSAGE_SIZE_TYPE len,
                 SYSTEM_TIME_TYPE timeout)
{
    RETURN_CODE_TYPE rc;
    SEND_BUFFER(buf_id, (MESSAGE_ADDR_TYPE)text, len, timeout, &rc);
    printf("%s: SEND_BUFFER('%s', %d) -> %s\n", who, text, (int)len, rc_name(rc));
}

static PROCESS_ID_TYPE create(const char *name, void (*entry)(void),
                              PRIORITY_TYPE prio, SYSTEM_TIME_TYPE period)
{
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid = NULL_PROCESS_ID;
    RETURN_CODE_TYPE rc;
    memset(&a, 0, sizeof a);
    a.PERIOD = period;
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)entry;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = prio;
    a.DEADLINE = SOFT;
    strncpy(a.NAME, name, MAX_NAME_LENGTH);
    CREATE_PROCESS(&a, &pid, &rc);
    printf("main: CREATE_PROCESS(%s) -> %s id=%d\n", name, rc_name(rc), (int)pid);
    return pid;
}

/* ------------------------------------------------------------------------ */

static void high_main(void)
{
    RETURN_CODE_TYPE rc;
    printf("high: entry\n");
    SIGNAL_SEMAPHORE(ctl_go, &rc);
    TN("high", "SIGNAL_SEMAPHORE(ctl_go)", rc);
    receive("high", INFINITE_TIME_VALUE);
    read_bb("high", INFINITE_TIME_VALUE);
    WAIT_EVENT(evt_id, INFINITE_TIME_VALUE, &rc);
    TN("high", "WAIT_EVENT", rc);
    WAIT_SEMAPHORE(sem_id, INFINITE_TIME_VALUE, &rc);
    TN("high", "WAIT_SEMAPHORE(sem)", rc);
    ACQUIRE_MUTEX(mtx_id, INFINITE_TIME_VALUE, &rc);
    TN("high", "ACQUIRE_MUTEX (priority above the ceiling)", rc);
    SUSPEND_SELF(INFINITE_TIME_VALUE, &rc);
    TN("high", "SUSPEND_SELF", rc);
    STOP_SELF();
    printf("high: after STOP_SELF (must not happen)\n");
}

static void low_main(void)
{
    RETURN_CODE_TYPE rc;
    low_entries++;
    printf("low: entry %d\n", low_entries);
    WAIT_SEMAPHORE(low_go, INFINITE_TIME_VALUE, &rc);
    TN("low", "WAIT_SEMAPHORE(low_go)", rc);
    RESUME(ctl_id, &rc);
    TN("low", "RESUME(ctl) (must not happen: stopped meanwhile)", rc);
    WAIT_SEMAPHORE(low_go, INFINITE_TIME_VALUE, &rc);
    TN("low", "WAIT_SEMAPHORE(low_go) (must not happen)", rc);
}

static void per_main(void)
{
    RETURN_CODE_TYPE rc;
    per_entries++;
    printf("per: entry %d\n", per_entries);
    REPLENISH(0, &rc);
    TN("per", "REPLENISH(0)", rc);
    REPLENISH(INFINITE_TIME_VALUE, &rc);
    TN("per", "REPLENISH(INFINITE) (periodic)", rc);
    PERIODIC_WAIT(&rc);
    TN("per", "PERIODIC_WAIT", rc);
    SUSPEND_SELF(INFINITE_TIME_VALUE, &rc);
    TN("per", "SUSPEND_SELF (periodic)", rc);
    SIGNAL_SEMAPHORE(ctl_go, &rc);
    TN("per", "SIGNAL_SEMAPHORE(ctl_go)", rc);
    if (per_entries == 2) {
        STOP_SELF();
        printf("per: after STOP_SELF (must not happen)\n");
    }
    WAIT_SEMAPHORE(per_go, INFINITE_TIME_VALUE, &rc);
    TN("per", "WAIT_SEMAPHORE(per_go) (must not happen)", rc);
}

static void ctl_main(void)
{
    const char *me = "ctl";
    RETURN_CODE_TYPE rc, rc2;
    char line[96];

    printf("ctl: entry\n");

    /* --- process services --- */
    PROCESS_INDEX_TYPE index = -1;
    GET_MY_INDEX(&index, &rc);
    T(me, "GET_MY_INDEX", rc);
    printf(" index=%d\n", (int)index);
    PROCESSOR_CORE_ID_TYPE core = -1;
    GET_MY_PROCESSOR_CORE_ID(&core, &rc);
    T(me, "GET_MY_PROCESSOR_CORE_ID", rc);
    printf(" core=%d\n", (int)core);
    PROCESS_ID_TYPE pid = -1;
    GET_PROCESS_ID(N("ctl"), &pid, &rc);
    T(me, "GET_PROCESS_ID(ctl)", rc);
    printf(" id=%d\n", (int)pid);
    show_status(me, ctl_id);
    {
        PROCESS_STATUS_TYPE st;
        GET_PROCESS_STATUS(ctl_id, &st, &rc);
        printf("ctl: GET_PROCESS_STATUS entry point %s\n",
               st.ATTRIBUTES.ENTRY_POINT == (SYSTEM_ADDRESS_TYPE)ctl_main ? "matches" : "differs");
    }
    GET_PROCESS_STATUS(99, NULL, &rc);
    TN(me, "GET_PROCESS_STATUS(99)", rc);
    GET_PROCESS_STATUS(ctl_id, NULL, &rc);
    TN(me, "GET_PROCESS_STATUS(ctl, NULL)", rc);
    SET_PRIORITY(ctl_id, 55, &rc);
    TN(me, "SET_PRIORITY(ctl, 55)", rc);
    show_status(me, ctl_id);
    SET_PRIORITY(ctl_id, 0, &rc);
    TN(me, "SET_PRIORITY(ctl, 0)", rc);
    SET_PRIORITY(ctl_id, 50, &rc);
    TN(me, "SET_PRIORITY(ctl, 50)", rc);
    SET_PRIORITY(high_id, 50, &rc);
    TN(me, "SET_PRIORITY(high) (dormant)", rc);

    /* --- time services (every other process is dormant) --- */
    TIMED_WAIT(0, &rc);
    TN(me, "TIMED_WAIT(0)", rc);
    TIMED_WAIT(-2, &rc);
    TN(me, "TIMED_WAIT(-2)", rc);
    TIMED_WAIT(2 * MS, &rc);
    TN(me, "TIMED_WAIT(2 ms)", rc);
    REPLENISH(5 * MS, &rc);
    TN(me, "REPLENISH(5 ms)", rc);
    REPLENISH(-3, &rc);
    TN(me, "REPLENISH(-3)", rc);

    /* --- semaphores --- */
    SEMAPHORE_ID_TYPE sid = -77;
    GET_SEMAPHORE_ID(N("sem"), &sid, &rc);
    T(me, "GET_SEMAPHORE_ID(sem)", rc);
    printf(" id=%d\n", (int)sid);
    {
        /* 30 significant characters, no NUL. */
        SEMAPHORE_NAME_TYPE full = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123";
        sid = -77;
        GET_SEMAPHORE_ID(full, &sid, &rc);
        T(me, "GET_SEMAPHORE_ID(30 characters)", rc);
        printf(" id=%d\n", (int)sid);
        char longer[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456";
        sid = -77;
        GET_SEMAPHORE_ID(longer, &sid, &rc);
        T(me, "GET_SEMAPHORE_ID(33 characters)", rc);
        printf(" id=%d\n", (int)sid);
    }
    sid = -77;
    GET_SEMAPHORE_ID(N("zz"), &sid, &rc);
    T(me, "GET_SEMAPHORE_ID(zz)", rc);
    printf(" id=%d (unchanged)\n", (int)sid);
    GET_SEMAPHORE_ID(NULL, &sid, &rc);
    TN(me, "GET_SEMAPHORE_ID(NULL)", rc);
    WAIT_SEMAPHORE(sem_id, 0, &rc);
    TN(me, "WAIT_SEMAPHORE(sem, 0)", rc);
    WAIT_SEMAPHORE(sem_id, 2 * MS, &rc);
    TN(me, "WAIT_SEMAPHORE(sem, 2 ms)", rc);
    SIGNAL_SEMAPHORE(sem_id, &rc);
    TN(me, "SIGNAL_SEMAPHORE(sem)", rc);
    SIGNAL_SEMAPHORE(sem_id, &rc);
    TN(me, "SIGNAL_SEMAPHORE(sem) (at maximum)", rc);
    show_sem(me, sem_id);
    WAIT_SEMAPHORE(sem_id, INFINITE_TIME_VALUE, &rc);
    TN(me, "WAIT_SEMAPHORE(sem, INFINITE)", rc);
    SIGNAL_SEMAPHORE(99, &rc);
    TN(me, "SIGNAL_SEMAPHORE(99)", rc);
    SIGNAL_SEMAPHORE(sem_id, NULL);
    GET_SEMAPHORE_STATUS(sem_id, NULL, &rc);
    TN(me, "GET_SEMAPHORE_STATUS(sem, NULL)", rc);
    WAIT_SEMAPHORE(sem_id, 0, &rc);
    TN(me, "WAIT_SEMAPHORE(sem, 0) after SIGNAL_SEMAPHORE(sem, NULL)", rc);

    /* --- events --- */
    EVENT_ID_TYPE eid = -77;
    GET_EVENT_ID(N("evt"), &eid, &rc);
    T(me, "GET_EVENT_ID(evt)", rc);
    printf(" id=%d\n", (int)eid);
    show_event(me);
    WAIT_EVENT(evt_id, 0, &rc);
    TN(me, "WAIT_EVENT(0)", rc);
    WAIT_EVENT(evt_id, 2 * MS, &rc);
    TN(me, "WAIT_EVENT(2 ms)", rc);
    SET_EVENT(evt_id, &rc);
    TN(me, "SET_EVENT", rc);
    WAIT_EVENT(evt_id, INFINITE_TIME_VALUE, &rc);
    TN(me, "WAIT_EVENT(INFINITE)", rc);
    show_event(me);
    RESET_EVENT(evt_id, &rc);
    TN(me, "RESET_EVENT", rc);
    show_event(me);
    SET_EVENT(0, &rc);
    TN(me, "SET_EVENT(0)", rc);
    GET_EVENT_ID(N("nope"), &eid, &rc);
    TN(me, "GET_EVENT_ID(nope)", rc);

    /* --- buffers --- */
    BUFFER_ID_TYPE bid = -77;
    GET_BUFFER_ID(N("buf"), &bid, &rc);
    T(me, "GET_BUFFER_ID(buf)", rc);
    printf(" id=%d\n", (int)bid);
    receive(me, 0);
    receive(me, 2 * MS);
    send(me, "a", 1, 0);
    send(me, "bb", 2, INFINITE_TIME_VALUE);
    send(me, "c", 1, 0);
    send(me, "c", 1, 2 * MS);
    send(me, "0123456789abcdefg", 17, 0);
    send(me, "", 0, 0);
    show_buffer(me);
    receive(me, 0);
    receive(me, INFINITE_TIME_VALUE);
    RECEIVE_BUFFER(buf_id, 0, NULL, NULL, &rc);
    TN(me, "RECEIVE_BUFFER(NULL address)", rc);

    /* --- blackboards --- */
    BLACKBOARD_ID_TYPE bbid = -77;
    GET_BLACKBOARD_ID(N("bb"), &bbid, &rc);
    T(me, "GET_BLACKBOARD_ID(bb)", rc);
    printf(" id=%d\n", (int)bbid);
    read_bb(me, 0);
    read_bb(me, 2 * MS);
    DISPLAY_BLACKBOARD(bb_id, (MESSAGE_ADDR_TYPE) "hello", 5, &rc);
    TN(me, "DISPLAY_BLACKBOARD(hello)", rc);
    read_bb(me, 0);
    show_blackboard(me);
    DISPLAY_BLACKBOARD(bb_id, (MESSAGE_ADDR_TYPE) "x", 0, &rc);
    TN(me, "DISPLAY_BLACKBOARD(length 0)", rc);
    CLEAR_BLACKBOARD(bb_id, &rc);
    TN(me, "CLEAR_BLACKBOARD", rc);
    show_blackboard(me);
    read_bb(me, 0);
    CLEAR_BLACKBOARD(5, &rc);
    TN(me, "CLEAR_BLACKBOARD(5)", rc);

    /* --- mutexes --- */
    MUTEX_ID_TYPE mid = -77;
    GET_MUTEX_ID(N("mtx"), &mid, &rc);
    T(me, "GET_MUTEX_ID(mtx)", rc);
    printf(" id=%d\n", (int)mid);
    GET_MUTEX_ID(N("zz"), &mid, &rc);
    TN(me, "GET_MUTEX_ID(zz)", rc);
    show_mutex(me);
    ACQUIRE_MUTEX(mtx_id, INFINITE_TIME_VALUE, &rc);
    TN(me, "ACQUIRE_MUTEX", rc);
    show_mutex(me);
    show_status(me, ctl_id);
    ACQUIRE_MUTEX(mtx_id, 0, &rc);
    TN(me, "ACQUIRE_MUTEX (again)", rc);
    show_mutex_state(me, ctl_id);
    TIMED_WAIT(1 * MS, &rc);
    TN(me, "TIMED_WAIT(1 ms) (owning a mutex)", rc);
    RELEASE_MUTEX(mtx_id, &rc);
    TN(me, "RELEASE_MUTEX", rc);
    show_mutex(me);
    RESET_MUTEX(mtx_id, ctl_id, &rc);
    TN(me, "RESET_MUTEX(mtx, ctl)", rc);
    show_mutex(me);
    show_status(me, ctl_id);
    RELEASE_MUTEX(mtx_id, &rc);
    TN(me, "RELEASE_MUTEX (not owner)", rc);
    RESET_MUTEX(mtx_id, ctl_id, &rc);
    TN(me, "RESET_MUTEX(mtx, ctl) (not owned)", rc);
    show_mutex_state(me, ctl_id);
    ACQUIRE_MUTEX(99, 0, &rc);
    TN(me, "ACQUIRE_MUTEX(99)", rc);

    /* --- preemption lock --- */
    LOCK_LEVEL_TYPE level = -1;
    LOCK_PREEMPTION(&level, &rc);
    T(me, "LOCK_PREEMPTION", rc);
    printf(" level=%d\n", (int)level);
    show_mutex_state(me, ctl_id);
    LOCK_PREEMPTION(&level, &rc);
    T(me, "LOCK_PREEMPTION", rc);
    printf(" level=%d\n", (int)level);
    UNLOCK_PREEMPTION(&level, &rc);
    T(me, "UNLOCK_PREEMPTION", rc);
    printf(" level=%d\n", (int)level);
    UNLOCK_PREEMPTION(&level, &rc);
    T(me, "UNLOCK_PREEMPTION", rc);
    printf(" level=%d\n", (int)level);
    UNLOCK_PREEMPTION(&level, &rc);
    TN(me, "UNLOCK_PREEMPTION (not locked)", rc);

    /* --- high: delayed start, then each of its waits is satisfied by ctl --- */
    DELAYED_START(high_id, 2 * MS, &rc);
    WAIT_SEMAPHORE(ctl_go, INFINITE_TIME_VALUE, &rc2);
    TN(me, "DELAYED_START(high, 2 ms)", rc);
    TN(me, "WAIT_SEMAPHORE(ctl_go)", rc2);
    DELAYED_START(high_id, 0, &rc);
    TN(me, "DELAYED_START(high, 0) (not dormant)", rc);
    show_buffer(me);
    send(me, "msg", 3, INFINITE_TIME_VALUE);
    show_blackboard(me);
    DISPLAY_BLACKBOARD(bb_id, (MESSAGE_ADDR_TYPE) "news", 4, &rc);
    TN(me, "DISPLAY_BLACKBOARD(news)", rc);
    show_event(me);
    SET_EVENT(evt_id, &rc);
    TN(me, "SET_EVENT", rc);
    RESET_EVENT(evt_id, &rc);
    TN(me, "RESET_EVENT", rc);
    show_sem(me, sem_id);
    LOCK_PREEMPTION(&level, &rc);
    T(me, "LOCK_PREEMPTION", rc);
    printf(" level=%d\n", (int)level);
    SIGNAL_SEMAPHORE(sem_id, &rc);
    TN(me, "SIGNAL_SEMAPHORE(sem) (preemption locked)", rc);
    show_status(me, high_id);
    UNLOCK_PREEMPTION(&level, &rc);
    T(me, "UNLOCK_PREEMPTION", rc);
    printf(" level=%d\n", (int)level);
    show_status(me, high_id);
    SUSPEND(high_id, &rc);
    TN(me, "SUSPEND(high) (suspended itself)", rc);
    RESUME(high_id, &rc);
    TN(me, "RESUME(high)", rc);
    show_status(me, high_id);
    RESUME(high_id, &rc);
    TN(me, "RESUME(high) (dormant)", rc);

    /* --- low: STOP of a process inside a call or waiting, then START --- */
    START(low_id, &rc);
    TN(me, "START(low)", rc);
    SET_PRIORITY(low_id, 70, &rc);
    TN(me, "SET_PRIORITY(low, 70)", rc);
    SET_PRIORITY(low_id, 10, &rc);
    TN(me, "SET_PRIORITY(low, 10)", rc);
    SUSPEND(low_id, &rc);
    TN(me, "SUSPEND(low)", rc);
    SUSPEND(low_id, &rc);
    TN(me, "SUSPEND(low) (again)", rc);
    SUSPEND(ctl_id, &rc);
    TN(me, "SUSPEND(ctl) (self)", rc);
    SIGNAL_SEMAPHORE(low_go, &rc);
    TN(me, "SIGNAL_SEMAPHORE(low_go)", rc);
    show_status(me, low_id);
    RESUME(low_id, &rc);
    TN(me, "RESUME(low)", rc);
    show_status(me, low_id);
    RESUME(low_id, &rc);
    TN(me, "RESUME(low) (not suspended)", rc);
    SUSPEND_SELF(INFINITE_TIME_VALUE, &rc);
    TN(me, "SUSPEND_SELF(INFINITE)", rc);
    show_status(me, low_id);
    STOP(low_id, &rc);
    TN(me, "STOP(low) (preempted inside RESUME)", rc);
    STOP(low_id, &rc);
    TN(me, "STOP(low) (dormant)", rc);
    STOP(ctl_id, &rc);
    TN(me, "STOP(ctl) (self)", rc);
    show_status(me, low_id);
    START(low_id, &rc);
    TN(me, "START(low)", rc);
    SET_PRIORITY(low_id, 70, &rc);
    TN(me, "SET_PRIORITY(low, 70)", rc);
    STOP(low_id, &rc);
    TN(me, "STOP(low) (waiting on low_go)", rc);
    START(low_id, &rc);
    TN(me, "START(low)", rc);
    SET_PRIORITY(low_id, 70, &rc);
    TN(me, "SET_PRIORITY(low, 70)", rc);
    show_sem(me, low_go);

    /* --- suspension time-outs (the others wait indefinitely) --- */
    SUSPEND_SELF(2 * MS, &rc);
    TN(me, "SUSPEND_SELF(2 ms)", rc);
    SUSPEND_SELF(0, &rc);
    TN(me, "SUSPEND_SELF(0)", rc);
    SUSPEND_SELF(-5, &rc);
    TN(me, "SUSPEND_SELF(-5)", rc);

    /* --- per: periodic process, stopped while waiting, then stopping itself --- */
    for (int round = 1; round <= 3; round++) {
        START(per_id, &rc);
        WAIT_SEMAPHORE(ctl_go, INFINITE_TIME_VALUE, &rc2);
        snprintf(line, sizeof line, "START(per) round %d", round);
        TN(me, line, rc);
        TN(me, "WAIT_SEMAPHORE(ctl_go)", rc2);
        if (round == 1) {
            SUSPEND(per_id, &rc);
            TN(me, "SUSPEND(per) (periodic)", rc);
            STOP(per_id, &rc);
            TN(me, "STOP(per)", rc);
        }
        show_status(me, per_id);
    }

    show_status(me, ctl_id);
    printf("ctl: done\n");
    fflush(stdout);
    SET_PARTITION_MODE(IDLE, &rc);
    printf("ctl: SET_PARTITION_MODE(IDLE) returned %s\n", rc_name(rc));
}

/* ------------------------------------------------------------------------ */

int main(void)
{
    const char *me = "main";
    RETURN_CODE_TYPE rc;

    ctl_id = create("ctl", ctl_main, 50, INFINITE_TIME_VALUE);
    high_id = create("high", high_main, 90, INFINITE_TIME_VALUE);
    low_id = create("low", low_main, 10, INFINITE_TIME_VALUE);
    per_id = create("per", per_main, 80, 10 * MS);

    PROCESS_ID_TYPE pid = -77;
    GET_PROCESS_ID(N("nope"), &pid, &rc);
    T(me, "GET_PROCESS_ID(nope)", rc);
    printf(" id=%d (unchanged)\n", (int)pid);
    GET_PROCESS_ID(N("per"), &pid, &rc);
    T(me, "GET_PROCESS_ID(per)", rc);
    printf(" id=%d\n", (int)pid);
    PROCESS_INDEX_TYPE index = -77;
    GET_MY_INDEX(&index, &rc);
    T(me, "GET_MY_INDEX", rc);
    printf(" index=%d (unchanged)\n", (int)index);
    PROCESSOR_CORE_ID_TYPE core = -77;
    GET_MY_PROCESSOR_CORE_ID(&core, &rc);
    T(me, "GET_MY_PROCESSOR_CORE_ID", rc);
    printf(" core=%d\n", (int)core);
    INITIALIZE_PROCESS_CORE_AFFINITY(ctl_id, 0, &rc);
    TN(me, "INITIALIZE_PROCESS_CORE_AFFINITY(ctl, 0)", rc);
    INITIALIZE_PROCESS_CORE_AFFINITY(ctl_id, CORE_AFFINITY_NO_PREFERENCE, &rc);
    TN(me, "INITIALIZE_PROCESS_CORE_AFFINITY(ctl, NO_PREFERENCE)", rc);
    INITIALIZE_PROCESS_CORE_AFFINITY(ctl_id, 3, &rc);
    TN(me, "INITIALIZE_PROCESS_CORE_AFFINITY(ctl, 3)", rc);
    TIMED_WAIT(1 * MS, &rc);
    TN(me, "TIMED_WAIT", rc);
    SUSPEND_SELF(0, &rc);
    TN(me, "SUSPEND_SELF", rc);
    LOCK_LEVEL_TYPE level = -77;
    LOCK_PREEMPTION(&level, &rc);
    T(me, "LOCK_PREEMPTION", rc);
    printf(" level=%d (unchanged)\n", (int)level);
    REPLENISH(1 * MS, &rc);
    TN(me, "REPLENISH", rc);
    STOP_SELF();
    printf("main: STOP_SELF returned\n");
    DELAYED_START(high_id, -5, &rc);
    TN(me, "DELAYED_START(high, -5)", rc);

    CREATE_SEMAPHORE(N("sem"), 0, 1, PRIORITY, &sem_id, &rc);
    T(me, "CREATE_SEMAPHORE(sem)", rc);
    printf(" id=%d\n", (int)sem_id);
    CREATE_SEMAPHORE(N("ctl_go"), 0, 10, FIFO, &ctl_go, &rc);
    T(me, "CREATE_SEMAPHORE(ctl_go)", rc);
    printf(" id=%d\n", (int)ctl_go);
    CREATE_SEMAPHORE(N("low_go"), 0, 10, FIFO, &low_go, &rc);
    T(me, "CREATE_SEMAPHORE(low_go)", rc);
    printf(" id=%d\n", (int)low_go);
    CREATE_SEMAPHORE(N("per_go"), 0, 1, FIFO, &per_go, &rc);
    T(me, "CREATE_SEMAPHORE(per_go)", rc);
    printf(" id=%d\n", (int)per_go);
    {
        SEMAPHORE_NAME_TYPE full = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123";
        SEMAPHORE_ID_TYPE id = -1;
        CREATE_SEMAPHORE(full, 1, 1, FIFO, &id, &rc);
        T(me, "CREATE_SEMAPHORE(30 characters)", rc);
        printf(" id=%d\n", (int)id);
    }
    SEMAPHORE_ID_TYPE bad = -77;
    CREATE_SEMAPHORE(N("bad"), 2, 1, FIFO, &bad, &rc);
    T(me, "CREATE_SEMAPHORE(bad, 2, 1)", rc);
    printf(" id=%d (unchanged)\n", (int)bad);
    CREATE_SEMAPHORE(N("sem"), 0, 1, FIFO, &bad, &rc);
    TN(me, "CREATE_SEMAPHORE(sem) (exists)", rc);
    CREATE_SEMAPHORE(N("q"), 0, 1, 7, &bad, &rc);
    TN(me, "CREATE_SEMAPHORE(q, discipline 7)", rc);

    CREATE_EVENT(N("evt"), &evt_id, &rc);
    T(me, "CREATE_EVENT(evt)", rc);
    printf(" id=%d\n", (int)evt_id);
    CREATE_EVENT(N("evt"), NULL, &rc);
    TN(me, "CREATE_EVENT(evt) (exists)", rc);

    CREATE_BUFFER(N("buf"), 16, 2, FIFO, &buf_id, &rc);
    T(me, "CREATE_BUFFER(buf, 16, 2)", rc);
    printf(" id=%d\n", (int)buf_id);
    CREATE_BUFFER(N("b0"), 0, 2, FIFO, NULL, &rc);
    TN(me, "CREATE_BUFFER(b0, 0, 2)", rc);
    CREATE_BUFFER(N("b1"), 16, -1, FIFO, NULL, &rc);
    TN(me, "CREATE_BUFFER(b1, 16, -1)", rc);

    CREATE_BLACKBOARD(N("bb"), 16, &bb_id, &rc);
    T(me, "CREATE_BLACKBOARD(bb, 16)", rc);
    printf(" id=%d\n", (int)bb_id);
    CREATE_BLACKBOARD(N("bb2"), -1, NULL, &rc);
    TN(me, "CREATE_BLACKBOARD(bb2, -1)", rc);

    CREATE_MUTEX(N("mtx"), 60, PRIORITY, &mtx_id, &rc);
    T(me, "CREATE_MUTEX(mtx, 60)", rc);
    printf(" id=%d\n", (int)mtx_id);
    CREATE_MUTEX(N("m0"), 300, FIFO, NULL, &rc);
    TN(me, "CREATE_MUTEX(m0, 300)", rc);

    WAIT_SEMAPHORE(sem_id, 0, &rc);
    TN(me, "WAIT_SEMAPHORE(sem, 0)", rc);
    WAIT_SEMAPHORE(sem_id, INFINITE_TIME_VALUE, &rc);
    TN(me, "WAIT_SEMAPHORE(sem, INFINITE)", rc);

    START(ctl_id, &rc);
    TN(me, "START(ctl)", rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    TN(me, "SET_PARTITION_MODE(NORMAL) returned", rc);
    return 1;
}
