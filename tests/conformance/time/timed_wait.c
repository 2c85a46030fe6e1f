/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * time/timed_wait - TIMED_WAIT(0) yields to the other ready processes of the
 * same priority only; TIMED_WAIT(d) lets lower-priority processes run and
 * returns no earlier than d.
 */
#include "../conformance.h"

static void a_main(void)
{
    RETURN_CODE_TYPE rc;
    SYSTEM_TIME_TYPE t0;
    T("a: TIMED_WAIT(0)");
    TIMED_WAIT(0, &rc);
    TRC("a: TIMED_WAIT(0) returned", rc);
    t0 = now_ns();
    T("a: TIMED_WAIT(40ms)");
    TIMED_WAIT(40 * MS, &rc);
    TRC("a: TIMED_WAIT(40ms) returned", rc);
    T("a: waited at least 40ms: %s", now_ns() - t0 >= 40 * MS ? "yes" : "no");
    end();
}

static void b_main(void)
{
    RETURN_CODE_TYPE rc;
    T("b: running");
    T("b: TIMED_WAIT(0)");
    TIMED_WAIT(0, &rc);
    TRC("b: TIMED_WAIT(0) returned", rc);
    STOP_SELF();
}

static void lo_main(void)
{
    RETURN_CODE_TYPE rc;
    T("lo: running");
    TIMED_WAIT(0, &rc);
    TRC("lo: TIMED_WAIT(0) alone at its priority", rc);
    STOP_SELF();
}

int main(void)
{
    start(mkproc("a", a_main, 10));
    start(mkproc("b", b_main, 10));
    start(mkproc("lo", lo_main, 5));
    go_normal();
    return 1;
}
