/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The system partition of the module-schedules example: the "startup manager" of the seed
 * paper. During the initialisation schedule it has long windows; its startup process does
 * the module's initialisation work, then asks for the running schedule
 * (SET_MODULE_SCHEDULE), which takes over at the end of the current major frame. Its monitor
 * process reports the module schedule status every period. */
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>

#define WORK_UNITS 4

static SYSTEM_TIME_TYPE now(void)
{
    SYSTEM_TIME_TYPE t;
    RETURN_CODE_TYPE rc;
    GET_TIME(&t, &rc);
    return t;
}

static double ms(SYSTEM_TIME_TYPE t) { return t / 1e6; }

/* Stand-in for the real initialisation work (loading tables, checking them): a fixed
 * amount of computation per unit. */
static unsigned long long work_unit(unsigned long long seed)
{
    for (long i = 0; i < 20 * 1000 * 1000; i++)
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed;
}

static void startup(void)
{
    RETURN_CODE_TYPE rc;
    unsigned long long x = 1;
    for (int u = 1; u <= WORK_UNITS; u++) {
        x = work_unit(x);
        printf("startup: work unit %d/%d done at %.3f ms (%llx)\n", u, WORK_UNITS, ms(now()),
               x & 0xffff);
    }
    SCHEDULE_NAME_TYPE name;
    SCHEDULE_ID_TYPE running;
    memset(name, 0, sizeof name);
    memcpy(name, "running", 7);
    GET_MODULE_SCHEDULE_ID(name, &running, &rc);
    if (rc != NO_ERROR) {
        printf("startup: no schedule named running (rc %d)\n", (int)rc);
        STOP_SELF();
    }
    SET_MODULE_SCHEDULE(running, &rc);
    printf("startup: initialisation done at %.3f ms, SET_MODULE_SCHEDULE(%d) -> %d\n",
           ms(now()), (int)running, (int)rc);
    STOP_SELF();
}

static void monitor(void)
{
    RETURN_CODE_TYPE rc;
    for (;;) {
        SCHEDULE_STATUS_TYPE s;
        PARTITION_STATUS_TYPE p;
        GET_MODULE_SCHEDULE_STATUS(&s, &rc);
        GET_PARTITION_STATUS(&p, &rc);
        printf("monitor: %.3f ms: schedule %d, next %d, last switch %.3f ms; "
               "period %.0f ms, duration %.0f ms\n",
               ms(now()), (int)s.CURRENT_SCHEDULE, (int)s.NEXT_SCHEDULE,
               ms(s.TIME_OF_LAST_SCHEDULE_SWITCH), ms(p.PERIOD), ms(p.DURATION));
        PERIODIC_WAIT(&rc);
    }
}

static void create(const char *name, void (*entry)(void), SYSTEM_TIME_TYPE period, int prio)
{
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    RETURN_CODE_TYPE rc;
    memset(&a, 0, sizeof a);
    strncpy(a.NAME, name, sizeof a.NAME - 1);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)entry;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = prio;
    a.PERIOD = period;
    a.TIME_CAPACITY = period;
    a.DEADLINE = SOFT;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE st;
    GET_PARTITION_STATUS(&st, &rc);
    create("monitor", monitor, st.PERIOD, 20);
    create("startup", startup, INFINITE_TIME_VALUE, 10);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
