/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * semaphore/queuing_order - waiters are released in FIFO order by a FIFO
 * semaphore (whatever their priorities) and by priority, FIFO among equal
 * priorities, by a PRIORITY semaphore.
 *
 * ctl (1, the lowest) starts the waiters one at a time: each runs at once and
 * queues on the semaphore, so the queue order is the start order.  Each
 * SIGNAL_SEMAPHORE then releases one waiter, which (being above ctl) runs at
 * once and reports.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE ctl, a, b, c, p10, p20, p30;
static SEMAPHORE_ID_TYPE cur;
static const char *cur_name;

static void waiter(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE me;
    PROCESS_STATUS_TYPE st;
    GET_MY_ID(&me, &rc);
    GET_PROCESS_STATUS(me, &st, &rc);
    WAIT_SEMAPHORE(cur, INFINITE_TIME_VALUE, &rc);
    T("%.30s: released by %s -> %s", st.ATTRIBUTES.NAME, cur_name, rc_name(rc));
    STOP_SELF();
}

static void round_of(const char *name, QUEUING_DISCIPLINE_TYPE d, SEMAPHORE_ID_TYPE id,
                     PROCESS_ID_TYPE *order, int n)
{
    RETURN_CODE_TYPE rc;
    SEMAPHORE_STATUS_TYPE st;
    cur = id;
    cur_name = name;
    (void)d;
    for (int i = 0; i < n; i++)
        start(order[i]);
    GET_SEMAPHORE_STATUS(id, &st, &rc);
    T("ctl: %s waiting=%d", name, (int)st.WAITING_PROCESSES);
    for (int i = 0; i < n; i++) {
        T("ctl: SIGNAL_SEMAPHORE(%s)", name);
        SIGNAL_SEMAPHORE(id, &rc);
    }
}

static void ctl_main(void)
{
    SEMAPHORE_ID_TYPE f1, f2, p1, p2;
    RETURN_CODE_TYPE rc;
    GET_SEMAPHORE_ID(N("fifo_equal"), &f1, &rc);
    GET_SEMAPHORE_ID(N("fifo_mixed"), &f2, &rc);
    GET_SEMAPHORE_ID(N("prio_mixed"), &p1, &rc);
    GET_SEMAPHORE_ID(N("prio_equal"), &p2, &rc);
    T("ctl: queue order a b c (all 10)");
    round_of("fifo_equal", FIFO, f1, (PROCESS_ID_TYPE[]){a, b, c}, 3);
    T("ctl: queue order p10 p30 p20");
    round_of("fifo_mixed", FIFO, f2, (PROCESS_ID_TYPE[]){p10, p30, p20}, 3);
    T("ctl: queue order p10 p30 p20");
    round_of("prio_mixed", PRIORITY, p1, (PROCESS_ID_TYPE[]){p10, p30, p20}, 3);
    T("ctl: queue order a p30 b c");
    round_of("prio_equal", PRIORITY, p2, (PROCESS_ID_TYPE[]){a, p30, b, c}, 4);
    end();
}

int main(void)
{
    mksem("fifo_equal", 0, 10, FIFO);
    mksem("fifo_mixed", 0, 10, FIFO);
    mksem("prio_mixed", 0, 10, PRIORITY);
    mksem("prio_equal", 0, 10, PRIORITY);
    ctl = mkproc("ctl", ctl_main, 1);
    a = mkproc("a", waiter, 10);
    b = mkproc("b", waiter, 10);
    c = mkproc("c", waiter, 10);
    p10 = mkproc("p10", waiter, 10);
    p20 = mkproc("p20", waiter, 20);
    p30 = mkproc("p30", waiter, 30);
    start(ctl);
    go_normal();
    return 1;
}
