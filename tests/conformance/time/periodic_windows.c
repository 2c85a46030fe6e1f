/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * time/periodic_windows - periodic releases with two windows per frame.
 *
 * @module frame=100 windows=10:30,60:30 filler=40:20,90:10 duration=1000
 *
 * The partition (period 100 ms = the frame) owns [10,40) and [60,90) of every
 * frame; its period starts at 10 ms.  per (period 100 ms) is released at each
 * period start, i.e. at the start of the first window; late (period 100 ms,
 * DELAYED_START 50 ms) at the start of the second one.  sleeper's TIMED_WAIT
 * expires while the partition is out of its windows: it resumes at the start
 * of the next one.  Each activation prints its index and whether GET_TIME mod
 * the frame lies in a window of the partition, and near which window start.
 */
#include "../conformance.h"

#define FRAME (100 * MS)

static SEMAPHORE_ID_TYPE go;

static const char *in_window(SYSTEM_TIME_TYPE t)
{
    SYSTEM_TIME_TYPE o = t % FRAME;
    return (o >= 10 * MS && o < 40 * MS) || (o >= 60 * MS && o < 90 * MS) ? "yes" : "no";
}

/* Which window start t is within 10 ms of. */
static const char *near(SYSTEM_TIME_TYPE t)
{
    SYSTEM_TIME_TYPE o = t % FRAME;
    if (o >= 10 * MS && o < 20 * MS)
        return "window 1 start";
    if (o >= 60 * MS && o < 70 * MS)
        return "window 2 start";
    return "elsewhere";
}

static void per_main(void)
{
    RETURN_CODE_TYPE rc;
    for (int n = 1; n <= 3; n++) {
        SYSTEM_TIME_TYPE t = now_ns();
        T("per: activation %d, in window: %s, at %s", n, in_window(t), near(t));
        if (n == 1)
            SIGNAL_SEMAPHORE(go, &rc);
        PERIODIC_WAIT(&rc);
    }
    STOP_SELF();
}

static void late_main(void)
{
    RETURN_CODE_TYPE rc;
    for (int n = 1; n <= 3; n++) {
        SYSTEM_TIME_TYPE t = now_ns();
        T("late: activation %d, in window: %s, at %s", n, in_window(t), near(t));
        PERIODIC_WAIT(&rc);
    }
    STOP_SELF();
}

static void sleeper_main(void)
{
    RETURN_CODE_TYPE rc;
    SYSTEM_TIME_TYPE t;
    WAIT_SEMAPHORE(go, INFINITE_TIME_VALUE, &rc);
    /* released by per at ~10 ms: 35 ms later is in the filler's window */
    TIMED_WAIT(35 * MS, &rc);
    t = now_ns();
    T("sleeper: TIMED_WAIT(35ms) -> %s, in window: %s, at %s", rc_name(rc), in_window(t),
      near(t));
    TIMED_WAIT(300 * MS, &rc);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE per, late;
    go = mksem("go", 0, 1, FIFO);
    a = attrs("per", per_main, 20);
    a.PERIOD = FRAME;
    a.TIME_CAPACITY = FRAME;
    CREATE_PROCESS(&a, &per, &rc);
    a = attrs("late", late_main, 15);
    a.PERIOD = FRAME;
    a.TIME_CAPACITY = FRAME;
    CREATE_PROCESS(&a, &late, &rc);
    start(per);
    DELAYED_START(late, 50 * MS, &rc);
    TRC("main: DELAYED_START(late, 50ms)", rc);
    start(mkproc("sleeper", sleeper_main, 10));
    go_normal();
    return 1;
}
