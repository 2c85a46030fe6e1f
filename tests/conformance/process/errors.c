/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * process/errors - return codes of the process management services.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, per, idle_proc;

static void per_main(void)
{
    RETURN_CODE_TYPE rc;
    SUSPEND_SELF(10 * MS, &rc);
    TRC("per: SUSPEND_SELF by a periodic process", rc);
    STOP_SELF();
}

static void idle_main(void)
{
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a = attrs("late", idle_main, 10);
    PROCESS_ID_TYPE pid = 0;
    PROCESS_STATUS_TYPE st;
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("ctl: CREATE_PROCESS in NORMAL mode", rc);
    START(99, &rc);
    TRC("ctl: START(unknown id)", rc);
    START(ctl, &rc);
    TRC("ctl: START(self, not DORMANT)", rc);
    DELAYED_START(idle_proc, -1 * MS, &rc);
    TRC("ctl: DELAYED_START(negative delay)", rc);
    DELAYED_START(per, 100 * MS, &rc);
    TRC("ctl: DELAYED_START(periodic, delay = period)", rc);
    STOP(99, &rc);
    TRC("ctl: STOP(unknown id)", rc);
    STOP(idle_proc, &rc);
    TRC("ctl: STOP(dormant)", rc);
    SUSPEND(ctl, &rc);
    TRC("ctl: SUSPEND(self)", rc);
    SUSPEND(idle_proc, &rc);
    TRC("ctl: SUSPEND(dormant)", rc);
    SUSPEND(99, &rc);
    TRC("ctl: SUSPEND(unknown id)", rc);
    RESUME(ctl, &rc);
    TRC("ctl: RESUME(self)", rc);
    RESUME(idle_proc, &rc);
    TRC("ctl: RESUME(dormant)", rc);
    SET_PRIORITY(ctl, 0, &rc);
    TRC("ctl: SET_PRIORITY(self, 0)", rc);
    SET_PRIORITY(ctl, MAX_PRIORITY_VALUE + 1, &rc);
    TRC("ctl: SET_PRIORITY(self, MAX_PRIORITY_VALUE + 1)", rc);
    SET_PRIORITY(idle_proc, 12, &rc);
    TRC("ctl: SET_PRIORITY(dormant)", rc);
    SET_PRIORITY(99, 12, &rc);
    TRC("ctl: SET_PRIORITY(unknown id)", rc);
    GET_PROCESS_ID(N("nobody"), &pid, &rc);
    TRC("ctl: GET_PROCESS_ID(unknown name)", rc);
    GET_PROCESS_ID(N("per"), &pid, &rc);
    T("ctl: GET_PROCESS_ID(per) -> %s %s", rc_name(rc), pid == per ? "same id" : "other id");
    GET_PROCESS_STATUS(99, &st, &rc);
    TRC("ctl: GET_PROCESS_STATUS(unknown id)", rc);
    GET_MY_ID(&pid, &rc);
    T("ctl: GET_MY_ID -> %s %s", rc_name(rc), pid == ctl ? "same id" : "other id");
    PROCESS_INDEX_TYPE index = -1;
    GET_MY_INDEX(&index, &rc);
    T("ctl: GET_MY_INDEX -> %s %d", rc_name(rc), (int)index);
    PROCESSOR_CORE_ID_TYPE core = -5;
    GET_MY_PROCESSOR_CORE_ID(&core, &rc);
    T("ctl: GET_MY_PROCESSOR_CORE_ID -> %s %d", rc_name(rc), (int)core);
    INITIALIZE_PROCESS_CORE_AFFINITY(idle_proc, 0, &rc);
    TRC("ctl: INITIALIZE_PROCESS_CORE_AFFINITY in NORMAL mode", rc);
    LOCK_LEVEL_TYPE level = -1;
    UNLOCK_PREEMPTION(&level, &rc);
    TRC("ctl: UNLOCK_PREEMPTION not locked", rc);
    SUSPEND(per, &rc);
    TRC("ctl: SUSPEND(periodic)", rc);
    START(per, &rc);
    TRC("ctl: START(periodic)", rc);
    TIMED_WAIT(150 * MS, &rc); /* per runs at its release point, within 100 ms */
    TRC("ctl: TIMED_WAIT(150ms)", rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE pid = 0;
    PROCESS_ATTRIBUTE_TYPE a;

    PROCESS_INDEX_TYPE index;
    GET_MY_ID(&pid, &rc);
    TRC("main: GET_MY_ID", rc);
    GET_MY_INDEX(&index, &rc);
    TRC("main: GET_MY_INDEX", rc);
    ctl = mkproc("ctl", ctl_main, 20);
    idle_proc = mkproc("idle", idle_main, 5);
    a = attrs("ctl", idle_main, 10);
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("main: CREATE_PROCESS(existing name)", rc);
    a = attrs("p1", idle_main, 10);
    a.STACK_SIZE = 0;
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("main: CREATE_PROCESS(stack size 0)", rc);
    a = attrs("p2", idle_main, 0);
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("main: CREATE_PROCESS(priority 0)", rc);
    a = attrs("p3", idle_main, MAX_PRIORITY_VALUE + 1);
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("main: CREATE_PROCESS(priority MAX_PRIORITY_VALUE + 1)", rc);
    a = attrs("p4", idle_main, 10);
    a.PERIOD = 150 * MS;
    a.TIME_CAPACITY = 150 * MS;
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("main: CREATE_PROCESS(period not a multiple of the partition period)", rc);
    a = attrs("p5", idle_main, 10);
    a.PERIOD = 100 * MS;
    a.TIME_CAPACITY = 200 * MS;
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("main: CREATE_PROCESS(time capacity > period)", rc);
    a = attrs("p6", idle_main, 10);
    a.PERIOD = -5;
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("main: CREATE_PROCESS(negative period)", rc);
    a = attrs("p7", idle_main, 10);
    a.TIME_CAPACITY = -5;
    CREATE_PROCESS(&a, &pid, &rc);
    TRC("main: CREATE_PROCESS(negative time capacity)", rc);
    a = attrs("per", per_main, 15);
    a.PERIOD = 100 * MS;
    a.TIME_CAPACITY = 100 * MS;
    CREATE_PROCESS(&a, &per, &rc);
    TRC("main: CREATE_PROCESS(periodic, period = partition period)", rc);
    start(ctl);
    go_normal();
    return 1;
}
