/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * time/deadline_miss - a process that computes past its TIME_CAPACITY misses
 * its deadline: the runtime reports it (checked in the manager's output, see
 * deadline_miss.output); one that REPLENISHes its budget in time does not.
 * (thrifty is started by hog when it is done: the deadline of an aperiodic
 * process runs from its START, whether it waits or not.)
 */
#include "../conformance.h"

static PROCESS_ID_TYPE thrifty;

static void hog_main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_STATUS_TYPE st;
    PROCESS_ID_TYPE me;
    GET_MY_ID(&me, &rc);
    T("hog: computing 60ms with a 20ms time capacity");
    busy_ns(60 * MS);
    GET_PROCESS_STATUS(me, &st, &rc);
    T("hog: deadline passed: %s", st.DEADLINE_TIME < now_ns() ? "yes" : "no");
    START(thrifty, &rc); /* its deadline: 20ms from now */
    STOP_SELF();
}

static void thrifty_main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_STATUS_TYPE st;
    PROCESS_ID_TYPE me;
    GET_MY_ID(&me, &rc);
    T("thrifty: computing 10ms, REPLENISH(200ms), computing 30ms (20ms time capacity)");
    busy_ns(10 * MS);
    REPLENISH(200 * MS, &rc);
    TRC("thrifty: REPLENISH(200ms)", rc);
    busy_ns(30 * MS);
    GET_PROCESS_STATUS(me, &st, &rc);
    T("thrifty: deadline passed: %s", st.DEADLINE_TIME < now_ns() ? "yes" : "no");
    TIMED_WAIT(100 * MS, &rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    a = attrs("hog", hog_main, 20); /* process 1 */
    a.TIME_CAPACITY = 20 * MS;
    CREATE_PROCESS(&a, &pid, &rc);
    start(pid);
    a = attrs("thrifty", thrifty_main, 10); /* process 2 */
    a.TIME_CAPACITY = 20 * MS;
    CREATE_PROCESS(&a, &thrifty, &rc);
    go_normal();
    return 1;
}
