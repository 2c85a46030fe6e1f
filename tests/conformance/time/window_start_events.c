/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * time/window_start_events - time events due exactly at a window start, many
 * times over: each must be handled in the window that starts then, not one
 * window later.
 *
 * @module frame=20 windows=0:10 filler=10:10 duration=2500
 *
 * The partition (period 20 ms = the frame) owns [0,10) of every frame; its
 * period starts at 0.  Every 20 ms, exactly at its window start:
 * - tick (periodic, TIME_CAPACITY = PERIOD = 20 ms, doing almost no work) is
 *   released; its deadline is its next release point, and it always calls
 *   PERIODIC_WAIT long before it: no deadline miss may be recorded (see
 *   window_start_events.output);
 * - sleeper's TIMED_WAIT, asked for the time left until the next window
 *   start, expires;
 * - once, DELAYED_STARTed by tick for exactly one frame, is released.
 * Each of them checks that it runs in the window its event falls in: less
 * than a window length after the event (a handling one window late is a
 * frame late).  80 frames; the trace prints the counts of late ones.
 */
#include "../conformance.h"

#define FRAME (20 * MS)
#define WINDOW (10 * MS)
#define FRAMES 80

static PROCESS_ID_TYPE once, tick;
static int ticks, late_ticks, sleeps, late_sleeps, onces, late_onces;
static SYSTEM_TIME_TYPE once_due;
static SEMAPHORE_ID_TYPE done;

/* Whether an event due at `due` is handled in its window when seen at `t`. */
static int late(SYSTEM_TIME_TYPE due, SYSTEM_TIME_TYPE t)
{
    return t < due || t - due >= WINDOW;
}

static void tick_main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_STATUS_TYPE st;
    PROCESS_ID_TYPE me;
    GET_MY_ID(&me, &rc);
    for (;;) {
        SYSTEM_TIME_TYPE t = now_ns();
        GET_PROCESS_STATUS(me, &st, &rc);
        /* The release point of this activation: its deadline less the capacity. */
        SYSTEM_TIME_TYPE release = st.DEADLINE_TIME - FRAME;
        ticks++;
        late_ticks += late(release, t);
        if (ticks <= FRAMES) {
            /* once: released exactly at the next window start (release + FRAME). */
            once_due = release + FRAME;
            DELAYED_START(once, once_due - now_ns(), &rc);
            if (rc != NO_ERROR)
                T("tick: DELAYED_START -> %s", rc_name(rc));
        }
        if (ticks == FRAMES + 1) {
            SIGNAL_SEMAPHORE(done, &rc);
        }
        PERIODIC_WAIT(&rc);
        if (rc != NO_ERROR)
            T("tick: PERIODIC_WAIT -> %s", rc_name(rc));
    }
}

static void once_main(void)
{
    SYSTEM_TIME_TYPE t = now_ns();
    onces++;
    late_onces += late(once_due, t);
}

static void sleeper_main(void)
{
    RETURN_CODE_TYPE rc;
    for (int n = 0; n < FRAMES; n++) {
        SYSTEM_TIME_TYPE t = now_ns();
        SYSTEM_TIME_TYPE due = (t / FRAME + 1) * FRAME;
        TIMED_WAIT(due - now_ns(), &rc);
        t = now_ns();
        sleeps++;
        late_sleeps += late(due, t);
    }
    WAIT_SEMAPHORE(done, INFINITE_TIME_VALUE, &rc);
    STOP(tick, &rc); /* no activation after the counted ones */
    T("tick: %d activations, late: %d", ticks >= FRAMES ? FRAMES : ticks, late_ticks);
    T("sleeper: %d TIMED_WAITs to a window start, late: %d", sleeps, late_sleeps);
    T("once: %d DELAYED_STARTs to a window start, late: %d", onces >= FRAMES ? FRAMES : onces,
      late_onces);
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    done = mksem("done", 0, 1, FIFO);
    a = attrs("tick", tick_main, 30); /* process 1 */
    a.PERIOD = FRAME;
    a.TIME_CAPACITY = FRAME;
    CREATE_PROCESS(&a, &tick, &rc);
    /* above tick: released with it, it runs (and becomes DORMANT again) first */
    once = mkproc("once", once_main, 40);
    start(tick);
    start(mkproc("sleeper", sleeper_main, 10));
    go_normal();
    return 1;
}
