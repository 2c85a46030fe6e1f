/*
 * ARINC653.h - C binding of the ARINC 653 APEX interface, as provided by
 * Partita.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * This single header carries the types and constants of all of ARINC 653
 * Part 1 (APEX) plus the Part 2 sampling port extensions, and the prototypes
 * of the services Partita implements so far.  It includes <stddef.h>,
 * <stdint.h> and <string.h> (partition code commonly fills NAME_TYPE
 * fields with memset/strncpy and relies on the APEX header for them), and
 * compiles as C99 or later and as C++11 or later.
 *
 * Name parameters: the standard declares the input name of each service
 * with its NAME_TYPE (char[30]).  They are declared here as
 * `const char *`, which is the same parameter (an array parameter is a
 * pointer) and the runtime's contract (it reads at most MAX_NAME_LENGTH
 * bytes and stops at a NUL), so that a string literal such as "sem" is
 * accepted without GCC's -Wstringop-overflow or C++'s const errors.  The
 * standard type stays in a comment next to each one; see docs/porting.md.
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

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
 * when called by the main process). The process's frames are discarded
 * without unwinding (like longjmp) and its thread is reused at the next
 * START: nothing in them is cleaned up (C++ destructors do not run), and a
 * STOP_SELF called from the application's own signal handler leaves that
 * signal blocked in the thread.
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
    /*in */ const char *PROCESS_NAME, /* PROCESS_NAME_TYPE */
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
    /*in */ const char *BUFFER_NAME, /* BUFFER_NAME_TYPE */
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
    /*in */ const char *BUFFER_NAME, /* BUFFER_NAME_TYPE */
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
    /*in */ const char *BLACKBOARD_NAME, /* BLACKBOARD_NAME_TYPE */
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
    /*in */ const char *BLACKBOARD_NAME, /* BLACKBOARD_NAME_TYPE */
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
    /*in */ const char *SEMAPHORE_NAME, /* SEMAPHORE_NAME_TYPE */
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
    /*in */ const char *SEMAPHORE_NAME, /* SEMAPHORE_NAME_TYPE */
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
    /*in */ const char *EVENT_NAME, /* EVENT_NAME_TYPE */
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
    /*in */ const char *EVENT_NAME, /* EVENT_NAME_TYPE */
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
    /*in */ const char *MUTEX_NAME, /* MUTEX_NAME_TYPE */
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
    /*in */ const char *MUTEX_NAME, /* MUTEX_NAME_TYPE */
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

/* ======================================================================== */
/* PARTITA EXTENSION (not ARINC 653 Part 1): system-partition services      */
/* in the style of ARINC 653 Part 2.  Only a partition configured with      */
/* SystemPartition="true" may call them; any other partition gets           */
/* INVALID_CONFIG and the module health monitor records an ILLEGAL_REQUEST. */
/* Each call is a request to the partition manager: the calling process     */
/* blocks until the answer (NOT_AVAILABLE if none comes within 2 s).        */
/* See docs/health-monitor.md.                                              */
/* ======================================================================== */

/* Status of a partition as the module sees it. */
typedef struct {
    SYSTEM_TIME_TYPE PERIOD;
    SYSTEM_TIME_TYPE DURATION;
    PARTITION_ID_TYPE IDENTIFIER;
    LOCK_LEVEL_TYPE LOCK_LEVEL;
    OPERATING_MODE_TYPE OPERATING_MODE;  /* IDLE when it has no process */
    START_CONDITION_TYPE START_CONDITION;
    NUM_CORES_TYPE NUM_ASSIGNED_CORES;
    APEX_UNSIGNED RESTARTS;              /* restarts carried out */
    APEX_LONG_INTEGER HM_EVENTS;         /* logbook records about it */
    APEX_LONG_INTEGER WINDOWS;           /* windows it was scheduled in */
    APEX_UNSIGNED HAS_PROCESS;           /* 1: its Linux process exists */
    APEX_UNSIGNED SYSTEM_PARTITION;      /* 1: SystemPartition="true" */
} A_PARTITION_STATUS_TYPE;

/* Level an error was handled at, and the action taken (logbook entries). */
typedef enum {
    HM_LEVEL_MODULE = 0,
    HM_LEVEL_PARTITION = 1,
    HM_LEVEL_PROCESS = 2
} HM_LEVEL_TYPE;

typedef enum {
    HM_ACTION_ERROR_HANDLER = 0, /* process level: the partition's error handler */
    HM_ACTION_IGNORE = 1,
    HM_ACTION_IDLE = 2,
    HM_ACTION_COLD_START = 3,
    HM_ACTION_WARM_START = 4,
    HM_ACTION_SHUTDOWN = 5,      /* module */
    HM_ACTION_RESET = 6          /* module: every partition restarted */
} HM_ACTION_TYPE;

/* System states (SystemState numbers of the HM tables). */
#define HM_STATE_MODULE_INIT 1
#define HM_STATE_PARTITION_INIT 2
#define HM_STATE_PROCESS_EXECUTION 3
#define HM_STATE_ERROR_HANDLER 4
#define HM_STATE_OS 5

/* PROCESS_ID of a logbook entry: -1 main process, -2 error handler. */
#define HM_LOG_NO_PROCESS (-3)
#define HM_LOG_MESSAGE_SIZE 240

typedef struct {
    APEX_LONG_INTEGER TOTAL;       /* records made (the next record's index) */
    APEX_LONG_INTEGER FIRST_INDEX; /* oldest readable record */
    APEX_LONG_INTEGER KEPT;        /* readable records */
    APEX_LONG_INTEGER EVICTED;     /* records no longer readable */
    APEX_LONG_INTEGER CAPACITY;    /* records kept readable at most */
} HM_LOG_STATUS_TYPE;

typedef struct {
    APEX_LONG_INTEGER INDEX;
    SYSTEM_TIME_TYPE TIME;          /* since the module epoch */
    PARTITION_ID_TYPE PARTITION_ID; /* -1: module-wide */
    PROCESS_ID_TYPE PROCESS_ID;     /* or HM_LOG_NO_PROCESS */
    APEX_UNSIGNED SYSTEM_STATE;     /* HM_STATE_* */
    ERROR_CODE_TYPE ERROR_CODE;
    APEX_UNSIGNED ERROR_LEVEL;      /* HM_LEVEL_TYPE */
    APEX_UNSIGNED ACTION;           /* HM_ACTION_TYPE */
    APEX_UNSIGNED ERROR_IDENTIFIER; /* as matched in the HM tables */
    APEX_UNSIGNED LENGTH;           /* bytes of MESSAGE */
    APEX_BYTE MESSAGE[HM_LOG_MESSAGE_SIZE];
} HM_LOG_ENTRY_TYPE;

/*
 * GET_A_PARTITION_STATUS: status of the partition PARTITION_ID.
 * INVALID_CONFIG: the caller is not a system partition; INVALID_PARAM: no
 * such partition; NOT_AVAILABLE: no answer from the manager.
 */
extern void GET_A_PARTITION_STATUS(
    /*in */ PARTITION_ID_TYPE PARTITION_ID,
    /*out*/ A_PARTITION_STATUS_TYPE *PARTITION_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * SET_A_PARTITION_MODE: IDLE stops every process of partition PARTITION_ID
 * and keeps its windows empty; COLD_START / WARM_START re-create it
 * (START_CONDITION PARTITION_RESTART), released at its next window.
 * NORMAL: NO_ACTION if it is in NORMAL, else INVALID_MODE (a partition
 * reaches NORMAL only from its own initialisation).  IDLE of an IDLE
 * partition: NO_ACTION.  INVALID_PARAM: no such partition or mode; other
 * errors as GET_A_PARTITION_STATUS.
 */
extern void SET_A_PARTITION_MODE(
    /*in */ PARTITION_ID_TYPE PARTITION_ID,
    /*in */ OPERATING_MODE_TYPE OPERATING_MODE,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* GET_HM_LOG_STATUS: counters of the module's health-monitor logbook. */
extern void GET_HM_LOG_STATUS(
    /*out*/ HM_LOG_STATUS_TYPE *HM_LOG_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * READ_HM_LOG: logbook record INDEX (FIRST_INDEX <= INDEX < TOTAL).
 * INVALID_PARAM: not readable (not made yet, or evicted). A full logbook evicts the oldest
 * record of the partition holding the most, so readable indices may have gaps.
 */
extern void READ_HM_LOG(
    /*in */ APEX_LONG_INTEGER INDEX,
    /*out*/ HM_LOG_ENTRY_TYPE *ENTRY,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ======================================================================== */
/* END OF PARTITA EXTENSION: system-partition services                      */
/* ======================================================================== */

/* ======================================================================== */
/* PARTITA EXTENSION (not ARINC 653): application trace streams             */
/* ======================================================================== */
/* Any partition may add its own records to the trace of a run started     */
/* with `partita run --trace FILE` (as XtratuM's trace streams): each is    */
/* an APPLICATION event with the calling process, the time, STREAM (chosen  */
/* by the application) and VALUE. No allocation and no system call.        */
/* See docs/tracing.md.                                                     */

/*
 * PARTITA_TRACE_EVENT: records VALUE on STREAM.
 * NO_ERROR: recorded. NO_ACTION: the run is not traced. NOT_AVAILABLE: the
 * partition's trace ring was full (the record is lost and counted).
 */
extern void PARTITA_TRACE_EVENT(
    /*in */ APEX_UNSIGNED STREAM,
    /*in */ APEX_LONG_INTEGER VALUE,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ======================================================================== */
/* END OF PARTITA EXTENSION: application trace streams                      */
/* ======================================================================== */

/* ======================================================================== */
/* Multiple module schedules (ARINC 653 Part 2)                              */
/* ======================================================================== */

typedef APEX_INTEGER SCHEDULE_ID_TYPE;
typedef NAME_TYPE SCHEDULE_NAME_TYPE;

typedef struct {
    SYSTEM_TIME_TYPE TIME_OF_LAST_SCHEDULE_SWITCH; /* 0: no switch yet */
    SCHEDULE_ID_TYPE CURRENT_SCHEDULE;
    SCHEDULE_ID_TYPE NEXT_SCHEDULE; /* CURRENT_SCHEDULE when none pending */
} SCHEDULE_STATUS_TYPE;

/*
 * SET_MODULE_SCHEDULE: run SCHEDULE_ID from the end of the current major
 * frame of the running schedule (never inside a frame).  A second request
 * before the switch replaces the first.  INVALID_CONFIG: the partition may
 * not switch schedules (not a system partition, or SetModuleSchedule="false"
 * in the running schedule); INVALID_PARAM: no schedule has that identifier;
 * NO_ACTION: SCHEDULE_ID is the current schedule (a pending change is kept).
 */
extern void SET_MODULE_SCHEDULE(
    /*in */ SCHEDULE_ID_TYPE SCHEDULE_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_MODULE_SCHEDULE_STATUS: the current schedule, the next one (the
 * requested one while a change is pending) and the time of the last switch.
 * Any partition may call it.
 */
extern void GET_MODULE_SCHEDULE_STATUS(
    /*out*/ SCHEDULE_STATUS_TYPE *SCHEDULE_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/*
 * GET_MODULE_SCHEDULE_ID: the identifier of the schedule named
 * SCHEDULE_NAME.  Any partition may call it.  INVALID_CONFIG: no schedule has
 * that name.
 */
extern void GET_MODULE_SCHEDULE_ID(
    /*in */ const char *SCHEDULE_NAME, /* SCHEDULE_NAME_TYPE */
    /*out*/ SCHEDULE_ID_TYPE *SCHEDULE_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ======================================================================== */
/* Memory blocks (ARINC 653 Part 2)                                          */
/* ======================================================================== */

typedef APEX_INTEGER MEMORY_BLOCK_SIZE_TYPE;
typedef NAME_TYPE MEMORY_BLOCK_NAME_TYPE;
typedef APEX_BYTE *MEMORY_BLOCK_ADDRESS_TYPE;

typedef enum { MB_READ = 0, MB_READ_WRITE = 1 } MEMORY_BLOCK_MODE_TYPE;

typedef struct {
    MEMORY_BLOCK_ADDRESS_TYPE ADDRESS;
    MEMORY_BLOCK_MODE_TYPE MODE;
    MEMORY_BLOCK_SIZE_TYPE SIZE;
} MEMORY_BLOCK_STATUS_TYPE;

/*
 * GET_MEMORY_BLOCK_STATUS: the address, access mode and size of the memory
 * block named MEMORY_BLOCK_NAME: a Memory_Requirements entry of the
 * partition's configuration with that RegionName (SizeBytes, Access
 * READ_ONLY: MB_READ, READ_WRITE: MB_READ_WRITE).  The block is mapped, zero
 * filled, at the first call, private to the partition.  INVALID_CONFIG: the
 * partition's configuration names no such block.
 */
extern void GET_MEMORY_BLOCK_STATUS(
    /*in */ const char *MEMORY_BLOCK_NAME, /* MEMORY_BLOCK_NAME_TYPE */
    /*out*/ MEMORY_BLOCK_STATUS_TYPE *MEMORY_BLOCK_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ======================================================================== */
/* Inter-partition communication services: sampling and queuing ports        */
/* (types above, in the sampling/queuing port sections)                     */
/* ======================================================================== */

/*
 * Ports exist only as configured in the module's Connection_Table: CREATE_*
 * succeeds only during initialisation (else INVALID_MODE) and only for a
 * configured port whose name, size, direction, refresh period / number of
 * messages match the configuration (else INVALID_CONFIG); a second creation is
 * NO_ACTION. A port identifier from before a partition restart is refused
 * (INVALID_PARAM). Messages longer than MAX_MESSAGE_SIZE: INVALID_CONFIG;
 * LENGTH <= 0: INVALID_PARAM; an operation against the port's direction:
 * INVALID_MODE. Receiving areas (MESSAGE_ADDR of reads and receives) must hold
 * the port's MAX_MESSAGE_SIZE bytes. See docs/ports.md.
 */

/* CREATE_SAMPLING_PORT: REFRESH_PERIOD must equal the configured
 * RefreshRateSeconds when one is configured (any value >= 0 otherwise). */
extern void CREATE_SAMPLING_PORT(
    /*in */ const char *SAMPLING_PORT_NAME, /* SAMPLING_PORT_NAME_TYPE */
    /*in */ MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE,
    /*in */ PORT_DIRECTION_TYPE PORT_DIRECTION,
    /*in */ SYSTEM_TIME_TYPE REFRESH_PERIOD,
    /*out*/ SAMPLING_PORT_ID_TYPE *SAMPLING_PORT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* WRITE_SAMPLING_MESSAGE: replaces the channel's message (source port). */
extern void WRITE_SAMPLING_MESSAGE(
    /*in */ SAMPLING_PORT_ID_TYPE SAMPLING_PORT_ID,
    /*in */ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*in */ MESSAGE_SIZE_TYPE LENGTH,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* READ_SAMPLING_MESSAGE: copies the latest message; VALIDITY says whether
 * its age is within the refresh period (NO_ERROR either way). Empty port:
 * NO_ACTION, LENGTH 0. */
extern void READ_SAMPLING_MESSAGE(
    /*in */ SAMPLING_PORT_ID_TYPE SAMPLING_PORT_ID,
    /*out*/ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*out*/ MESSAGE_SIZE_TYPE *LENGTH,
    /*out*/ VALIDITY_TYPE *VALIDITY,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* GET_SAMPLING_PORT_ID: INVALID_CONFIG when no such port was created. */
extern void GET_SAMPLING_PORT_ID(
    /*in */ const char *SAMPLING_PORT_NAME, /* SAMPLING_PORT_NAME_TYPE */
    /*out*/ SAMPLING_PORT_ID_TYPE *SAMPLING_PORT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* GET_SAMPLING_PORT_STATUS: LAST_MSG_VALIDITY of the last message read. */
extern void GET_SAMPLING_PORT_STATUS(
    /*in */ SAMPLING_PORT_ID_TYPE SAMPLING_PORT_ID,
    /*out*/ SAMPLING_PORT_STATUS_TYPE *SAMPLING_PORT_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* READ_UPDATED_SAMPLING_MESSAGE (Part 2): copies the current message only if
 * this port has not read it yet (UPDATED = NEW_MESSAGE); otherwise NO_ACTION,
 * LENGTH 0, UPDATED = EMPTY_PORT or CONSUMED_MESSAGE. */
extern void READ_UPDATED_SAMPLING_MESSAGE(
    /*in */ SAMPLING_PORT_ID_TYPE SAMPLING_PORT_ID,
    /*out*/ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*out*/ MESSAGE_SIZE_TYPE *LENGTH,
    /*out*/ UPDATED_TYPE *UPDATED,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* GET_SAMPLING_PORT_CURRENT_STATUS (Part 2): time stamp, age and update state
 * of the channel's current message. */
extern void GET_SAMPLING_PORT_CURRENT_STATUS(
    /*in */ SAMPLING_PORT_ID_TYPE SAMPLING_PORT_ID,
    /*out*/ SAMPLING_PORT_CURRENT_STATUS_TYPE *SAMPLING_PORT_CURRENT_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* READ_SAMPLING_MESSAGE_CONDITIONAL (Part 2): copies the current message only
 * if it was written at or after REF_TIME_STAMP (else NOT_AVAILABLE, LENGTH 0);
 * TIME_STAMP receives its write time. Empty port: NO_ACTION. */
extern void READ_SAMPLING_MESSAGE_CONDITIONAL(
    /*in */ SAMPLING_PORT_ID_TYPE SAMPLING_PORT_ID,
    /*in */ SYSTEM_TIME_TYPE REF_TIME_STAMP,
    /*out*/ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*out*/ MESSAGE_SIZE_TYPE *LENGTH,
    /*out*/ SYSTEM_TIME_TYPE *TIME_STAMP,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* CREATE_QUEUING_PORT: waiters served per QUEUING_DISCIPLINE (an unknown
 * discipline or direction is INVALID_CONFIG). */
extern void CREATE_QUEUING_PORT(
    /*in */ const char *QUEUING_PORT_NAME, /* QUEUING_PORT_NAME_TYPE */
    /*in */ MESSAGE_SIZE_TYPE MAX_MESSAGE_SIZE,
    /*in */ MESSAGE_RANGE_TYPE MAX_NB_MESSAGE,
    /*in */ PORT_DIRECTION_TYPE PORT_DIRECTION,
    /*in */ QUEUING_DISCIPLINE_TYPE QUEUING_DISCIPLINE,
    /*out*/ QUEUING_PORT_ID_TYPE *QUEUING_PORT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* SEND_QUEUING_MESSAGE: queues the message; on a full queue waits up to
 * TIME_OUT (0: NOT_AVAILABLE; expiry: TIMED_OUT; a process that may not wait:
 * INVALID_MODE). */
extern void SEND_QUEUING_MESSAGE(
    /*in */ QUEUING_PORT_ID_TYPE QUEUING_PORT_ID,
    /*in */ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*in */ MESSAGE_SIZE_TYPE LENGTH,
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* RECEIVE_QUEUING_MESSAGE: oldest message; on an empty queue waits up to
 * TIME_OUT (0: NOT_AVAILABLE; expiry: TIMED_OUT; LENGTH 0). If messages were
 * discarded before it (overflow at a pseudo-partition bridge) the message is
 * returned with INVALID_CONFIG. */
extern void RECEIVE_QUEUING_MESSAGE(
    /*in */ QUEUING_PORT_ID_TYPE QUEUING_PORT_ID,
    /*in */ SYSTEM_TIME_TYPE TIME_OUT,
    /*out*/ MESSAGE_ADDR_TYPE MESSAGE_ADDR,
    /*out*/ MESSAGE_SIZE_TYPE *LENGTH,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* GET_QUEUING_PORT_ID: INVALID_CONFIG when no such port was created. */
extern void GET_QUEUING_PORT_ID(
    /*in */ const char *QUEUING_PORT_NAME, /* QUEUING_PORT_NAME_TYPE */
    /*out*/ QUEUING_PORT_ID_TYPE *QUEUING_PORT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* GET_QUEUING_PORT_STATUS: NB_MESSAGE in the channel; WAITING_PROCESSES of
 * this partition. */
extern void GET_QUEUING_PORT_STATUS(
    /*in */ QUEUING_PORT_ID_TYPE QUEUING_PORT_ID,
    /*out*/ QUEUING_PORT_STATUS_TYPE *QUEUING_PORT_STATUS,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* CLEAR_QUEUING_PORT: discards the queued messages (destination port). */
extern void CLEAR_QUEUING_PORT(
    /*in */ QUEUING_PORT_ID_TYPE QUEUING_PORT_ID,
    /*out*/ RETURN_CODE_TYPE *RETURN_CODE);

/* ======================================================================== */
/* End of the port services section                                          */
/* ======================================================================== */

#ifdef __cplusplus
}
#endif

#endif /* PARTITA_ARINC653_H */
