/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * time/errors - return codes of the time management services.
 */
#include "../conformance.h"

static void per_main(void)
{
    RETURN_CODE_TYPE rc;
    LOCK_LEVEL_TYPE level;
    REPLENISH(-5, &rc);
    TRC("per: REPLENISH(negative budget)", rc);
    REPLENISH(150 * MS, &rc);
    TRC("per: REPLENISH(budget beyond the next release point)", rc);
    LOCK_PREEMPTION(&level, &rc);
    PERIODIC_WAIT(&rc);
    TRC("per: PERIODIC_WAIT while holding the preemption lock", rc);
    UNLOCK_PREEMPTION(&level, &rc);
    PERIODIC_WAIT(&rc);
    TRC("per: PERIODIC_WAIT", rc);
    end();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    SYSTEM_TIME_TYPE t1 = 0, t2 = 0;
    TIMED_WAIT(-5, &rc);
    TRC("ctl: TIMED_WAIT(negative)", rc);
    TIMED_WAIT(INFINITE_TIME_VALUE, &rc);
    TRC("ctl: TIMED_WAIT(INFINITE_TIME_VALUE)", rc);
    PERIODIC_WAIT(&rc);
    TRC("ctl: PERIODIC_WAIT by an aperiodic process", rc);
    GET_TIME(&t1, &rc);
    GET_TIME(&t2, &rc);
    T("ctl: GET_TIME -> %s, monotonic: %s", rc_name(rc), t2 >= t1 ? "yes" : "no");
    REPLENISH(-5, &rc);
    TRC("ctl: REPLENISH(negative budget)", rc);
    STOP_SELF();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a = attrs("per", per_main, 10);
    PROCESS_ID_TYPE per;
    TIMED_WAIT(10 * MS, &rc);
    TRC("main: TIMED_WAIT", rc);
    PERIODIC_WAIT(&rc);
    TRC("main: PERIODIC_WAIT", rc);
    REPLENISH(10 * MS, &rc);
    TRC("main: REPLENISH", rc);
    a.PERIOD = 100 * MS;
    a.TIME_CAPACITY = 100 * MS;
    CREATE_PROCESS(&a, &per, &rc);
    start(per);
    start(mkproc("ctl", ctl_main, 20));
    go_normal();
    return 1;
}
