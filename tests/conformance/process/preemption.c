/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * process/preemption - a service that readies a higher-priority process lets
 * it run at once (before the service returns); a lower-priority one waits
 * until the caller blocks.
 *
 * ctl (20) starts hi (30): hi runs before START returns.  ctl starts lo (10):
 * ctl goes on.  ctl raises lo to 25 with SET_PRIORITY: lo runs at once.  ctl
 * lowers itself below mid (15, ready): mid runs at once.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, hi, lo, mid;

static void hi_main(void)
{
    T("hi: running, ctl is %s", state_name(state_of(ctl)));
    STOP_SELF();
}

static void lo_main(void)
{
    T("lo: running at priority %d", (int)prio_of(lo));
    STOP_SELF();
}

static void mid_main(void)
{
    T("mid: running, ctl priority %d state %s", (int)prio_of(ctl), state_name(state_of(ctl)));
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    T("ctl: START(hi)");
    START(hi, &rc);
    TRC("ctl: START(hi) returned", rc);
    T("ctl: START(lo)");
    START(lo, &rc);
    TRC("ctl: START(lo) returned", rc);
    T("ctl: lo is %s", state_name(state_of(lo)));
    T("ctl: SET_PRIORITY(lo, 25)");
    SET_PRIORITY(lo, 25, &rc);
    TRC("ctl: SET_PRIORITY(lo, 25) returned", rc);
    START(mid, &rc);
    TRC("ctl: START(mid) returned", rc);
    T("ctl: SET_PRIORITY(self, 12)");
    SET_PRIORITY(ctl, 12, &rc);
    TRC("ctl: SET_PRIORITY(self, 12) returned", rc);
    end();
}

int main(void)
{
    ctl = mkproc("ctl", ctl_main, 20);
    hi = mkproc("hi", hi_main, 30);
    lo = mkproc("lo", lo_main, 10);
    mid = mkproc("mid", mid_main, 15);
    start(ctl);
    go_normal();
    return 1;
}
