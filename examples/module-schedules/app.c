/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* An application partition of the module-schedules example. It has no window in the
 * initialisation schedule, so it starts when the running schedule takes over; its periodic
 * process then reports each activation. Argument: the partition's name. */
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>

static const char *me = "app";

static void worker(void)
{
    RETURN_CODE_TYPE rc;
    for (int n = 1;; n++) {
        SYSTEM_TIME_TYPE t;
        SCHEDULE_STATUS_TYPE s;
        GET_TIME(&t, &rc);
        GET_MODULE_SCHEDULE_STATUS(&s, &rc);
        printf("%s: activation %d at %.3f ms in schedule %d\n", me, n, t / 1e6,
               (int)s.CURRENT_SCHEDULE);
        PERIODIC_WAIT(&rc);
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE st;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    SYSTEM_TIME_TYPE t;
    if (argc > 1)
        me = argv[1];
    GET_PARTITION_STATUS(&st, &rc);
    GET_TIME(&t, &rc);
    printf("%s: initialisation at %.3f ms (period %.0f ms)\n", me, t / 1e6, st.PERIOD / 1e6);
    memset(&a, 0, sizeof a);
    strncpy(a.NAME, "worker", sizeof a.NAME - 1);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)worker;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = 10;
    a.PERIOD = st.PERIOD;
    a.TIME_CAPACITY = st.PERIOD;
    a.DEADLINE = SOFT;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
