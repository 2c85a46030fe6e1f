/*
 * ARINC653.h - C binding of the ARINC 653 APEX interface, as provided by
 * Partita.
 *
 * SPDX-License-Identifier: Apache-2.0
 *
 * This single header carries the types and constants of all of ARINC 653
 * Part 1 (APEX) plus the Part 2 sampling port extensions, and the prototypes
 * of the services Partita implements so far.  It needs nothing but
 * <stdint.h> and compiles as C99 or later and as C++11 or later.
 *
 * ABI: every enumeration below is a plain C enum and therefore has the size
 * and alignment of `unsigned int` (4 bytes on the supported targets).  The
 * Rust mirror lives in crates/apex/src/types.rs; crates/apex/tests/layout.rs
 * checks the two against each other.
 *
 * Values marked "implementation dependent" are left to the implementation
 * by the standard; the values here are Partita's choice.
 */

#ifndef PARTITA_ARINC653_H
#define PARTITA_ARINC653_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* System limits (implementation dependent)                                 */
/* ======================================================================== */

/* Module scope. */
#define SYSTEM_LIMIT_NUMBER_OF_PARTITIONS 32
#define SYSTEM_LIMIT_NUMBER_OF_MESSAGES 512
#define SYSTEM_LIMIT_MESSAGE_SIZE 8192

/* Partition scope: the limits apply to each partition separately. */
#define SYSTEM_LIMIT_NUMBER_OF_PROCESSES 128
#define SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS 512
#define SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS 512
#define SYSTEM_LIMIT_NUMBER_OF_BUFFERS 256
#define SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS 256
#define SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES 256
#define SYSTEM_LIMIT_NUMBER_OF_EVENTS 256
#define SYSTEM_LIMIT_NUMBER_OF_MUTEXES 256

/* ======================================================================== */
/* Base types                                                               */
/* ======================================================================== */

typedef unsigned char APEX_BYTE;    /* 8-bit unsigned */
typedef int32_t APEX_INTEGER;       /* 32-bit signed */
typedef uint32_t APEX_UNSIGNED;     /* 32-bit unsigned */
typedef int64_t APEX_LONG_INTEGER;  /* 64-bit signed */

/* ======================================================================== */
/* General types                                                            */
/* ======================================================================== */

/* Outcome of every service call. */
typedef enum {
    NO_ERROR = 0,       /* request valid and performed */
    NO_ACTION = 1,      /* system state unchanged by the request */
    NOT_AVAILABLE = 2,  /* a resource the request needs is unavailable */
    INVALID_PARAM = 3,  /* a parameter is invalid */
    INVALID_CONFIG = 4, /* a parameter conflicts with the configuration */
    INVALID_MODE = 5,   /* request not allowed in the current mode */
    TIMED_OUT = 6       /* the time-out expired before completion */
} RETURN_CODE_TYPE;

/* Object names: not necessarily NUL-terminated when all bytes are used. */
#define MAX_NAME_LENGTH 30
typedef char NAME_TYPE[MAX_NAME_LENGTH];

typedef void *SYSTEM_ADDRESS_TYPE;
typedef APEX_BYTE *MESSAGE_ADDR_TYPE;
typedef APEX_INTEGER MESSAGE_SIZE_TYPE;  /* message length in bytes */
typedef APEX_INTEGER MESSAGE_RANGE_TYPE; /* number of messages */
typedef APEX_INTEGER WAITING_RANGE_TYPE; /* number of waiting processes */

typedef enum { SOURCE = 0, DESTINATION = 1 } PORT_DIRECTION_TYPE;

typedef enum { FIFO = 0, PRIORITY = 1 } QUEUING_DISCIPLINE_TYPE;

/* Signed 64-bit time in nanoseconds. */
typedef APEX_LONG_INTEGER SYSTEM_TIME_TYPE;
#define INFINITE_TIME_VALUE (-1)

typedef APEX_INTEGER PROCESSOR_CORE_ID_TYPE;
/* Implementation dependent. */
#define CORE_AFFINITY_NO_PREFERENCE (-1)

/* ======================================================================== */
/* Partition management                                                     */
/* ======================================================================== */

typedef enum {
    IDLE = 0,
    COLD_START = 1,
    WARM_START = 2,
    NORMAL = 3
} OPERATING_MODE_TYPE;

typedef APEX_INTEGER PARTITION_ID_TYPE;
typedef APEX_INTEGER LOCK_LEVEL_TYPE;
typedef APEX_UNSIGNED NUM_CORES_TYPE;

/* Why the partition was (re)started. */
typedef enum {
    NORMAL_START = 0,
    PARTITION_RESTART = 1,
    HM_MODULE_RESTART = 2,
    HM_PARTITION_RESTART = 3
} START_CONDITION_TYPE;

typedef struct {
    SYSTEM_TIME_TYPE PERIOD;
    SYSTEM_TIME_TYPE DURATION;
    PARTITION_ID_TYPE IDENTIFIER;
    LOCK_LEVEL_TYPE LOCK_LEVEL;
    OPERATING_MODE_TYPE OPERATING_MODE;
    START_CONDITION_TYPE START_CONDITION;
    NUM_CORES_TYPE NUM_ASSIGNED_CORES;
} PARTITION_STATUS_TYPE;

/* ======================================================================== */
/* Process management                                                       */
/* ======================================================================== */

#define MAX_NUMBER_OF_PROCESSES SYSTEM_LIMIT_NUMBER_OF_PROCESSES
#define MIN_PRIORITY_VALUE 1
#define MAX_PRIORITY_VALUE 239
#define MAX_LOCK_LEVEL 16

typedef NAME_TYPE PROCESS_NAME_TYPE;

typedef APEX_INTEGER PROCESS_ID_TYPE;
#define NULL_PROCESS_ID 0

typedef APEX_INTEGER PROCESS_INDEX_TYPE;
typedef APEX_UNSIGNED STACK_SIZE_TYPE; /* bytes */
typedef APEX_INTEGER PRIORITY_TYPE;

typedef enum {
    DORMANT = 0,
    READY = 1,
    RUNNING = 2,
    WAITING = 3
} PROCESS_STATE_TYPE;

typedef enum { SOFT = 0, HARD = 1 } DEADLINE_TYPE;

typedef struct {
    SYSTEM_TIME_TYPE PERIOD;        /* INFINITE_TIME_VALUE: aperiodic */
    SYSTEM_TIME_TYPE TIME_CAPACITY; /* INFINITE_TIME_VALUE: no deadline */
    SYSTEM_ADDRESS_TYPE ENTRY_POINT;
    STACK_SIZE_TYPE STACK_SIZE;
    PRIORITY_TYPE BASE_PRIORITY;
    DEADLINE_TYPE DEADLINE;
    PROCESS_NAME_TYPE NAME;
} PROCESS_ATTRIBUTE_TYPE;

typedef struct {
    SYSTEM_TIME_TYPE DEADLINE_TIME;
    PRIORITY_TYPE CURRENT_PRIORITY;
    PROCESS_STATE_TYPE PROCESS_STATE;
    PROCESS_ATTRIBUTE_TYPE ATTRIBUTES;
} PROCESS_STATUS_TYPE;

/* ======================================================================== */
/* Inter-partition communication: sampling ports                            */
/* ======================================================================== */

#define MAX_NUMBER_OF_SAMPLING_PORTS SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS

typedef NAME_TYPE SAMPLING_PORT_NAME_TYPE;
typedef APEX_INTEGER SAMPLING_PORT_ID_TYPE;

typedef enum { INVALID = 0, VALID = 1 } VALIDITY_TYPE;

typedef struct {
    SYSTEM_TIME_TYPE REFRESH_PERIOD;
    MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE;
    PORT_DIRECTION_TYPE PORT_DIRECTION;
    VALIDITY_TYPE LAST_MSG_VALIDITY;
} SAMPLING_PORT_STATUS_TYPE;

/* Part 2 sampling port extensions. */

typedef enum {
    EMPTY_PORT = 0,       /* nothing was ever written */
    CONSUMED_MESSAGE = 1, /* the current message was read before */
    NEW_MESSAGE = 2       /* the current message was not read yet */
} UPDATED_TYPE;

typedef enum { STALE = 0, FRESH = 1 } AGE_TYPE;

typedef struct {
    SYSTEM_TIME_TYPE REFRESH_PERIOD;
    SYSTEM_TIME_TYPE TIME_STAMP;
    MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE;
    PORT_DIRECTION_TYPE PORT_DIRECTION;
    AGE_TYPE MESSAGE_AGE;
    UPDATED_TYPE UPDATED;
} SAMPLING_PORT_CURRENT_STATUS_TYPE;

/* ======================================================================== */
/* Inter-partition communication: queuing ports                             */
/* ======================================================================== */

#define MAX_NUMBER_OF_QUEUING_PORTS SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS

typedef NAME_TYPE QUEUING_PORT_NAME_TYPE;
typedef APEX_INTEGER QUEUING_PORT_ID_TYPE;

typedef struct {
    MESSAGE_RANGE_TYPE NB_MESSAGE;
    MESSAGE_RANGE_TYPE MAX_NB_MESSAGE;
    MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE;
    PORT_DIRECTION_TYPE PORT_DIRECTION;
    WAITING_RANGE_TYPE WAITING_PROCESSES;
} QUEUING_PORT_STATUS_TYPE;

/* ======================================================================== */
/* Intra-partition communication: buffers                                   */
/* ======================================================================== */

#define MAX_NUMBER_OF_BUFFERS SYSTEM_LIMIT_NUMBER_OF_BUFFERS

typedef NAME_TYPE BUFFER_NAME_TYPE;
typedef APEX_INTEGER BUFFER_ID_TYPE;

typedef struct {
    MESSAGE_RANGE_TYPE NB_MESSAGE;
    MESSAGE_RANGE_TYPE MAX_NB_MESSAGE;
    MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE;
    WAITING_RANGE_TYPE WAITING_PROCESSES;
} BUFFER_STATUS_TYPE;

/* ======================================================================== */
/* Intra-partition communication: blackboards                               */
/* ======================================================================== */

#define MAX_NUMBER_OF_BLACKBOARDS SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS

typedef NAME_TYPE BLACKBOARD_NAME_TYPE;
typedef APEX_INTEGER BLACKBOARD_ID_TYPE;

typedef enum { EMPTY = 0, OCCUPIED = 1 } EMPTY_INDICATOR_TYPE;

typedef struct {
    EMPTY_INDICATOR_TYPE EMPTY_INDICATOR;
    MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE;
    WAITING_RANGE_TYPE WAITING_PROCESSES;
} BLACKBOARD_STATUS_TYPE;

/* ======================================================================== */
/* Intra-partition communication: semaphores                                */
/* ======================================================================== */

#define MAX_NUMBER_OF_SEMAPHORES SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES
#define MAX_SEMAPHORE_VALUE 32767

typedef NAME_TYPE SEMAPHORE_NAME_TYPE;
typedef APEX_INTEGER SEMAPHORE_ID_TYPE;
typedef APEX_INTEGER SEMAPHORE_VALUE_TYPE;

typedef struct {
    SEMAPHORE_VALUE_TYPE CURRENT_VALUE;
    SEMAPHORE_VALUE_TYPE MAXIMUM_VALUE;
    WAITING_RANGE_TYPE WAITING_PROCESSES;
} SEMAPHORE_STATUS_TYPE;

/* ======================================================================== */
/* Intra-partition communication: events                                    */
/* ======================================================================== */

#define MAX_NUMBER_OF_EVENTS SYSTEM_LIMIT_NUMBER_OF_EVENTS

typedef NAME_TYPE EVENT_NAME_TYPE;
typedef APEX_INTEGER EVENT_ID_TYPE;

typedef enum { DOWN = 0, UP = 1 } EVENT_STATE_TYPE;

typedef struct {
    EVENT_STATE_TYPE EVENT_STATE;
    WAITING_RANGE_TYPE WAITING_PROCESSES;
} EVENT_STATUS_TYPE;

/* ======================================================================== */
/* Intra-partition communication: mutexes                                   */
/* ======================================================================== */

#define MAX_NUMBER_OF_MUTEXES SYSTEM_LIMIT_NUMBER_OF_MUTEXES

typedef NAME_TYPE MUTEX_NAME_TYPE;
typedef APEX_INTEGER MUTEX_ID_TYPE;
#define NULL_MUTEX_ID 0
/* Implementation dependent. */
#define NO_MUTEX_OWNED (-2)
/* Implementation dependent. */
#define PREEMPTION_LOCK_MUTEX (-3)

typedef APEX_INTEGER LOCK_COUNT_TYPE;

typedef enum { AVAILABLE = 0, OWNED = 1 } MUTEX_STATE_TYPE;

typedef struct {
    PROCESS_ID_TYPE MUTEX_OWNER; /* NULL_PROCESS_ID when available */
    MUTEX_STATE_TYPE MUTEX_STATE;
    PRIORITY_TYPE MUTEX_PRIORITY;
    LOCK_COUNT_TYPE LOCK_COUNT;
    WAITING_RANGE_TYPE WAITING_PROCESSES;
} MUTEX_STATUS_TYPE;

/* ======================================================================== */
/* Health monitoring                                                        */
/* ======================================================================== */

#define MAX_ERROR_MESSAGE_SIZE 128

typedef APEX_INTEGER ERROR_MESSAGE_SIZE_TYPE;
typedef APEX_BYTE ERROR_MESSAGE_TYPE[MAX_ERROR_MESSAGE_SIZE];

typedef enum {
    DEADLINE_MISSED = 0,
    APPLICATION_ERROR = 1,
    NUMERIC_ERROR = 2,
    ILLEGAL_REQUEST = 3,
    STACK_OVERFLOW = 4,
    MEMORY_VIOLATION = 5,
    HARDWARE_FAULT = 6,
    POWER_FAIL = 7
} ERROR_CODE_TYPE;

typedef struct {
    ERROR_CODE_TYPE ERROR_CODE;
    ERROR_MESSAGE_SIZE_TYPE LENGTH;
    PROCESS_ID_TYPE FAILED_PROCESS_ID;
    SYSTEM_ADDRESS_TYPE FAILED_ADDRESS;
    ERROR_MESSAGE_TYPE MESSAGE;
} ERROR_STATUS_TYPE;

/* What the other cores of the partition do while the error handler runs. */
typedef enum {
    PROCESSES_PAUSE = 0,    /* the processes on the other cores are paused */
    PROCESSES_SCHEDULED = 1 /* they keep being scheduled (default) */
} ERROR_HANDLER_CONCURRENCY_CONTROL_TYPE;

/* ######################################################################## */
/* Services implemented                                                     */
/*                                                                          */
/* Only the services Partita implements are declared; the others are added  */
/* here together with their implementation.  Every service reports its      */
/* outcome through the last parameter, RETURN_CODE.                         */
/* ######################################################################## */

/* ------------------------------------------------------------------------ */
/* Partition management services                                            */
/* ------------------------------------------------------------------------ */

/*
 * GET_PARTITION_STATUS: fill PARTITION_STATUS with the current status of
 * the calling partition (timing, identifier, lock level, operating mode,
 * start condition, assigned cores).
 */
extern void GET_PARTITION_STATUS(
    /*out*/ PARTITION_STATUS_TYPE *PARTITION_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * SET_PARTITION_MODE: switch the calling partition to OPERATING_MODE.
 * NORMAL starts process scheduling; IDLE stops the partition; COLD_START
 * and WARM_START restart it.
 */
extern void SET_PARTITION_MODE(
    /*in */ OPERATING_MODE_TYPE OPERATING_MODE,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ------------------------------------------------------------------------ */
/* Process management services                                              */
/* ------------------------------------------------------------------------ */

/*
 * CREATE_PROCESS: create a process from ATTRIBUTES, in the DORMANT state,
 * and return its identifier in PROCESS_ID.  Only allowed before the
 * partition enters NORMAL mode.
 */
extern void CREATE_PROCESS(
    /*in */ PROCESS_ATTRIBUTE_TYPE *ATTRIBUTES,
    /*out*/ PROCESS_ID_TYPE *PROCESS_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * START: move the DORMANT process PROCESS_ID to READY (or, before NORMAL
 * mode, make it ready to run once the partition enters NORMAL mode).
 */
extern void START(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_MY_ID: return the identifier of the calling process in PROCESS_ID.
 */
extern void GET_MY_ID(
    /*out*/ PROCESS_ID_TYPE *PROCESS_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * DELAYED_START: like START, with the first release DELAY_TIME later (for
 * a periodic process, DELAY_TIME after its first period start).
 */
extern void DELAYED_START(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*in */ SYSTEM_TIME_TYPE DELAY_TIME,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * STOP: make another process DORMANT; a later START runs it from its entry
 * point.  Its thread is abandoned where it is: a lock it holds outside APEX
 * (malloc, stdio) stays held.
 */
extern void STOP(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * STOP_SELF: make the calling process DORMANT; does not return (no effect
 * when called by the main process).
 */
extern void STOP_SELF(void);

/*
 * SUSPEND_SELF: suspend the calling aperiodic process until RESUME, or
 * until TIME_OUT expires (TIMED_OUT; INFINITE_TIME_VALUE: no time-out).
 */
extern void SUSPEND_SELF(
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * SUSPEND: suspend another aperiodic process until RESUME.
 */
extern void SUSPEND(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * RESUME: end the suspension of PROCESS_ID (SUSPEND or SUSPEND_SELF).
 */
extern void RESUME(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * SET_PRIORITY: set the current priority of PROCESS_ID; a ready process
 * becomes the newest of its new priority.
 */
extern void SET_PRIORITY(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*in */ PRIORITY_TYPE PRIORITY,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * LOCK_PREEMPTION: increment the preemption lock level (returned in
 * LOCK_LEVEL); no other process of the partition runs while it is above 0.
 */
extern void LOCK_PREEMPTION(
    /*out*/ LOCK_LEVEL_TYPE *LOCK_LEVEL,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * UNLOCK_PREEMPTION: decrement the preemption lock level (returned in
 * LOCK_LEVEL); at 0, pending preemptions take place.
 */
extern void UNLOCK_PREEMPTION(
    /*out*/ LOCK_LEVEL_TYPE *LOCK_LEVEL,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_PROCESS_ID: return the identifier of the process named PROCESS_NAME
 * (names are compared up to the first NUL).
 */
extern void GET_PROCESS_ID(
    /*in */ PROCESS_NAME_TYPE PROCESS_NAME,
    /*out*/ PROCESS_ID_TYPE *PROCESS_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_PROCESS_STATUS: return the deadline, current priority, state and
 * attributes of PROCESS_ID.
 */
extern void GET_PROCESS_STATUS(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*out*/ PROCESS_STATUS_TYPE *PROCESS_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * INITIALIZE_PROCESS_CORE_AFFINITY: bind PROCESS_ID to one of the
 * partition's cores (0-based; CORE_AFFINITY_NO_PREFERENCE: core 0).  Only
 * allowed before the partition enters NORMAL mode.  The process's thread is
 * pinned to the host CPU of that core.  INVALID_PARAM: unknown process;
 * INVALID_CONFIG: core not assigned to the partition; INVALID_MODE: NORMAL.
 */
extern void INITIALIZE_PROCESS_CORE_AFFINITY(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*in */ PROCESSOR_CORE_ID_TYPE PROCESSOR_CORE_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_MY_PROCESSOR_CORE_ID: return the partition core the caller runs on.
 */
extern void GET_MY_PROCESSOR_CORE_ID(
    /*out*/ PROCESSOR_CORE_ID_TYPE *PROCESSOR_CORE_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_MY_INDEX: return the 1-based creation index of the calling process.
 */
extern void GET_MY_INDEX(
    /*out*/ PROCESS_INDEX_TYPE *PROCESS_INDEX,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ------------------------------------------------------------------------ */
/* Time management services                                                 */
/* ------------------------------------------------------------------------ */

/*
 * PERIODIC_WAIT: suspend the calling periodic process until its next
 * release point, and move its deadline one period further.
 */
extern void PERIODIC_WAIT(
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_TIME: return the current system time, in nanoseconds, in
 * SYSTEM_TIME.
 */
extern void GET_TIME(
    /*out*/ SYSTEM_TIME_TYPE *SYSTEM_TIME,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * TIMED_WAIT: suspend the calling process for DELAY_TIME; 0 yields to the
 * other ready processes of the same priority.
 */
extern void TIMED_WAIT(
    /*in */ SYSTEM_TIME_TYPE DELAY_TIME,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * REPLENISH: move the deadline of the calling process to the current time
 * plus BUDGET_TIME.
 */
extern void REPLENISH(
    /*in */ SYSTEM_TIME_TYPE BUDGET_TIME,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ------------------------------------------------------------------------ */
/* Intra-partition communication services: buffers                          */
/* ------------------------------------------------------------------------ */

/*
 * CREATE_BUFFER: create a queue of MAX_NB_MESSAGE messages of up to
 * MAX_MESSAGE_SIZE bytes, waiters served per QUEUING_DISCIPLINE.
 */
extern void CREATE_BUFFER(
    /*in */ BUFFER_NAME_TYPE BUFFER_NAME,
    /*in */ MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE,
    /*in */ MESSAGE_RANGE_TYPE MAX_NB_MESSAGE,
    /*in */ QUEUING_DISCIPLINE_TYPE QUEUING_DISCIPLINE,
    /*out*/ BUFFER_ID_TYPE *BUFFER_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * SEND_BUFFER: copy the LENGTH bytes at MESSAGE_ADDR into the buffer,
 * waiting up to TIME_OUT while it is full.
 */
extern void SEND_BUFFER(
    /*in */ BUFFER_ID_TYPE BUFFER_ID,
    /*in */ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*in */ MESSAGE_SIZE_TYPE LENGTH,
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * RECEIVE_BUFFER: move the oldest message to MESSAGE_ADDR (which must hold
 * the buffer's MAX_MESSAGE_SIZE bytes), waiting up to TIME_OUT while empty.
 */
extern void RECEIVE_BUFFER(
    /*in */ BUFFER_ID_TYPE BUFFER_ID,
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*out*/ MESSAGE_SIZE_TYPE *LENGTH,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_BUFFER_ID: return the identifier of the buffer named BUFFER_NAME.
 */
extern void GET_BUFFER_ID(
    /*in */ BUFFER_NAME_TYPE BUFFER_NAME,
    /*out*/ BUFFER_ID_TYPE *BUFFER_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_BUFFER_STATUS: return the message count, capacity, message size and
 * number of waiting processes of BUFFER_ID.
 */
extern void GET_BUFFER_STATUS(
    /*in */ BUFFER_ID_TYPE BUFFER_ID,
    /*out*/ BUFFER_STATUS_TYPE *BUFFER_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ------------------------------------------------------------------------ */
/* Intra-partition communication services: blackboards                      */
/* ------------------------------------------------------------------------ */

/*
 * CREATE_BLACKBOARD: create an empty blackboard for messages of up to
 * MAX_MESSAGE_SIZE bytes.
 */
extern void CREATE_BLACKBOARD(
    /*in */ BLACKBOARD_NAME_TYPE BLACKBOARD_NAME,
    /*in */ MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE,
    /*out*/ BLACKBOARD_ID_TYPE *BLACKBOARD_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * DISPLAY_BLACKBOARD: display the LENGTH bytes at MESSAGE_ADDR and wake
 * every waiting reader.
 */
extern void DISPLAY_BLACKBOARD(
    /*in */ BLACKBOARD_ID_TYPE BLACKBOARD_ID,
    /*in */ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*in */ MESSAGE_SIZE_TYPE LENGTH,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * READ_BLACKBOARD: copy the displayed message to MESSAGE_ADDR (which must
 * hold the blackboard's MAX_MESSAGE_SIZE bytes), waiting up to TIME_OUT
 * while the blackboard is empty.
 */
extern void READ_BLACKBOARD(
    /*in */ BLACKBOARD_ID_TYPE BLACKBOARD_ID,
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*out*/ MESSAGE_SIZE_TYPE *LENGTH,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * CLEAR_BLACKBOARD: make the blackboard empty.
 */
extern void CLEAR_BLACKBOARD(
    /*in */ BLACKBOARD_ID_TYPE BLACKBOARD_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_BLACKBOARD_ID: return the identifier of the blackboard named
 * BLACKBOARD_NAME.
 */
extern void GET_BLACKBOARD_ID(
    /*in */ BLACKBOARD_NAME_TYPE BLACKBOARD_NAME,
    /*out*/ BLACKBOARD_ID_TYPE *BLACKBOARD_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_BLACKBOARD_STATUS: return the empty indicator, message size and
 * number of waiting processes of BLACKBOARD_ID.
 */
extern void GET_BLACKBOARD_STATUS(
    /*in */ BLACKBOARD_ID_TYPE BLACKBOARD_ID,
    /*out*/ BLACKBOARD_STATUS_TYPE *BLACKBOARD_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ------------------------------------------------------------------------ */
/* Intra-partition communication services: semaphores                       */
/* ------------------------------------------------------------------------ */

/*
 * CREATE_SEMAPHORE: create a counting semaphore with CURRENT_VALUE out of
 * MAXIMUM_VALUE, waiters served per QUEUING_DISCIPLINE.
 */
extern void CREATE_SEMAPHORE(
    /*in */ SEMAPHORE_NAME_TYPE SEMAPHORE_NAME,
    /*in */ SEMAPHORE_VALUE_TYPE CURRENT_VALUE,
    /*in */ SEMAPHORE_VALUE_TYPE MAXIMUM_VALUE,
    /*in */ QUEUING_DISCIPLINE_TYPE QUEUING_DISCIPLINE,
    /*out*/ SEMAPHORE_ID_TYPE *SEMAPHORE_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * WAIT_SEMAPHORE: decrement the semaphore, waiting up to TIME_OUT while it
 * is 0.
 */
extern void WAIT_SEMAPHORE(
    /*in */ SEMAPHORE_ID_TYPE SEMAPHORE_ID,
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * SIGNAL_SEMAPHORE: wake the first waiter, or increment the semaphore.
 */
extern void SIGNAL_SEMAPHORE(
    /*in */ SEMAPHORE_ID_TYPE SEMAPHORE_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_SEMAPHORE_ID: return the identifier of the semaphore named
 * SEMAPHORE_NAME.
 */
extern void GET_SEMAPHORE_ID(
    /*in */ SEMAPHORE_NAME_TYPE SEMAPHORE_NAME,
    /*out*/ SEMAPHORE_ID_TYPE *SEMAPHORE_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_SEMAPHORE_STATUS: return the current and maximum values and the
 * number of waiting processes of SEMAPHORE_ID.
 */
extern void GET_SEMAPHORE_STATUS(
    /*in */ SEMAPHORE_ID_TYPE SEMAPHORE_ID,
    /*out*/ SEMAPHORE_STATUS_TYPE *SEMAPHORE_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ------------------------------------------------------------------------ */
/* Intra-partition communication services: events                           */
/* ------------------------------------------------------------------------ */

/*
 * CREATE_EVENT: create an event in the DOWN state.
 */
extern void CREATE_EVENT(
    /*in */ EVENT_NAME_TYPE EVENT_NAME,
    /*out*/ EVENT_ID_TYPE *EVENT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * SET_EVENT: set the event UP and wake every waiting process.
 */
extern void SET_EVENT(
    /*in */ EVENT_ID_TYPE EVENT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * RESET_EVENT: set the event DOWN.
 */
extern void RESET_EVENT(
    /*in */ EVENT_ID_TYPE EVENT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * WAIT_EVENT: return at once if the event is UP, else wait up to TIME_OUT
 * for it to be set.
 */
extern void WAIT_EVENT(
    /*in */ EVENT_ID_TYPE EVENT_ID,
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_EVENT_ID: return the identifier of the event named EVENT_NAME.
 */
extern void GET_EVENT_ID(
    /*in */ EVENT_NAME_TYPE EVENT_NAME,
    /*out*/ EVENT_ID_TYPE *EVENT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_EVENT_STATUS: return the state and number of waiting processes of
 * EVENT_ID.
 */
extern void GET_EVENT_STATUS(
    /*in */ EVENT_ID_TYPE EVENT_ID,
    /*out*/ EVENT_STATUS_TYPE *EVENT_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ------------------------------------------------------------------------ */
/* Intra-partition communication services: mutexes                          */
/* ------------------------------------------------------------------------ */

/*
 * CREATE_MUTEX: create a mutex with priority ceiling MUTEX_PRIORITY,
 * waiters served per QUEUING_DISCIPLINE.
 */
extern void CREATE_MUTEX(
    /*in */ MUTEX_NAME_TYPE MUTEX_NAME,
    /*in */ PRIORITY_TYPE MUTEX_PRIORITY,
    /*in */ QUEUING_DISCIPLINE_TYPE QUEUING_DISCIPLINE,
    /*out*/ MUTEX_ID_TYPE *MUTEX_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * ACQUIRE_MUTEX: take (or, for its owner, re-take) the mutex, waiting up to
 * TIME_OUT while another process owns it; the owner runs at the ceiling.
 */
extern void ACQUIRE_MUTEX(
    /*in */ MUTEX_ID_TYPE MUTEX_ID,
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * RELEASE_MUTEX: decrement the lock count; at 0 the mutex goes to its first
 * waiter.
 */
extern void RELEASE_MUTEX(
    /*in */ MUTEX_ID_TYPE MUTEX_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * RESET_MUTEX: release MUTEX_ID owned by PROCESS_ID whatever its lock count.
 */
extern void RESET_MUTEX(
    /*in */ MUTEX_ID_TYPE MUTEX_ID,
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_MUTEX_ID: return the identifier of the mutex named MUTEX_NAME.
 */
extern void GET_MUTEX_ID(
    /*in */ MUTEX_NAME_TYPE MUTEX_NAME,
    /*out*/ MUTEX_ID_TYPE *MUTEX_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_MUTEX_STATUS: return the owner, state, ceiling, lock count and number
 * of waiting processes of MUTEX_ID.
 */
extern void GET_MUTEX_STATUS(
    /*in */ MUTEX_ID_TYPE MUTEX_ID,
    /*out*/ MUTEX_STATUS_TYPE *MUTEX_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_PROCESS_MUTEX_STATE: return the mutex PROCESS_ID owns,
 * PREEMPTION_LOCK_MUTEX if it holds the preemption lock, else
 * NO_MUTEX_OWNED.
 */
extern void GET_PROCESS_MUTEX_STATE(
    /*in */ PROCESS_ID_TYPE PROCESS_ID,
    /*out*/ MUTEX_ID_TYPE *MUTEX_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ------------------------------------------------------------------------ */
/* Health monitoring services                                               */
/* ------------------------------------------------------------------------ */

/*
 * REPORT_APPLICATION_MESSAGE: hand the LENGTH bytes at MESSAGE_ADDR to the
 * health monitor for logging (at most MAX_ERROR_MESSAGE_SIZE bytes).
 */
extern void REPORT_APPLICATION_MESSAGE(
    /*in */ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*in */ MESSAGE_SIZE_TYPE LENGTH,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * CREATE_ERROR_HANDLER: create the partition's error handler, a process
 * above every other one that runs when an error is raised (ENTRY_POINT is a
 * void (*)(void)).  During initialisation only.  NO_ACTION: already
 * created; INVALID_CONFIG: process table or stack storage exhausted;
 * INVALID_PARAM: STACK_SIZE 0 or null ENTRY_POINT; INVALID_MODE: NORMAL.
 */
extern void CREATE_ERROR_HANDLER(
    /*in */ SYSTEM_ADDRESS_TYPE ENTRY_POINT,
    /*in */ STACK_SIZE_TYPE STACK_SIZE,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_ERROR_STATUS: remove and return the oldest error pending for the
 * error handler.  INVALID_CONFIG: the caller is not the error handler;
 * NO_ACTION: no error pending.
 */
extern void GET_ERROR_STATUS(
    /*out*/ ERROR_STATUS_TYPE *ERROR_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * RAISE_APPLICATION_ERROR: raise an APPLICATION_ERROR for the calling
 * process with the LENGTH bytes at MESSAGE_ADDR (at most
 * MAX_ERROR_MESSAGE_SIZE).  With an error handler (NORMAL mode) the handler
 * runs before the call returns; otherwise the error goes to the module's
 * health monitor.  INVALID_PARAM: other ERROR_CODE, LENGTH out of range.
 */
extern void RAISE_APPLICATION_ERROR(
    /*in */ ERROR_CODE_TYPE ERROR_CODE,
    /*in */ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*in */ ERROR_MESSAGE_SIZE_TYPE LENGTH,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * CONFIGURE_ERROR_HANDLER: set the concurrency control and the core of the
 * error handler (during initialisation, after CREATE_ERROR_HANDLER).
 * INVALID_CONFIG: no error handler or core not assigned to the partition;
 * INVALID_PARAM: unknown CONCURRENCY_CONTROL; INVALID_MODE: NORMAL.
 */
extern void CONFIGURE_ERROR_HANDLER(
    /*in */ ERROR_HANDLER_CONCURRENCY_CONTROL_TYPE CONCURRENCY_CONTROL,
    /*in */ PROCESSOR_CORE_ID_TYPE PROCESSOR_CORE_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

#ifdef __cplusplus
}
#endif

#endif /* PARTITA_ARINC653_H */
