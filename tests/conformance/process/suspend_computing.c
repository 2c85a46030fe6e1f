/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * process/suspend_computing - SUSPEND and STOP of a process preempted in the
 * middle of its code (not in an APEX call), on one core: while the core is
 * otherwise idle, the suspended (then stopped) process does not run; RESUME
 * lets it run again.
 *
 * spin (5) counts without end.  ctl (10) wakes from TIMED_WAIT (a timer
 * event: spin is preempted in its loop), suspends spin and waits 20 ms: the
 * counter stands still.  RESUME: it advances while ctl waits.  STOP: it stands
 * still again.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE spin;
static volatile unsigned long counter;

static unsigned long count(void) { return __atomic_load_n(&counter, __ATOMIC_RELAXED); }

static void spin_main(void)
{
    for (;;)
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    unsigned long c0;
    TIMED_WAIT(10 * MS, &rc);
    T("ctl: spin ran meanwhile: %s, spin is %s", count() > 0 ? "yes" : "no",
      state_name(state_of(spin)));
    SUSPEND(spin, &rc);
    TRC("ctl: SUSPEND(spin)", rc);
    c0 = count();
    TIMED_WAIT(20 * MS, &rc);
    T("ctl: spin stood still while suspended (core idle): %s", count() == c0 ? "yes" : "no");
    RESUME(spin, &rc);
    TRC("ctl: RESUME(spin)", rc);
    c0 = count();
    TIMED_WAIT(20 * MS, &rc);
    T("ctl: spin ran after RESUME: %s", count() != c0 ? "yes" : "no");
    STOP(spin, &rc);
    TRC("ctl: STOP(spin)", rc);
    c0 = count();
    TIMED_WAIT(20 * MS, &rc);
    T("ctl: spin stood still once stopped (core idle): %s", count() == c0 ? "yes" : "no");
    end();
}

int main(void)
{
    spin = mkproc("spin", spin_main, 5);
    start(mkproc("ctl", ctl_main, 10));
    start(spin);
    go_normal();
    return 0;
}
