/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * ports/queuing - queuing ports over channels looped back into the same partition
 * (OUT -> IN: 16 bytes x 2 messages, FIFO waiters; OUT2 -> IN2: PRIORITY waiters): FIFO
 * delivery; a receiver waiting on an empty port gets the next message (and, being above the
 * sender, runs before SEND returns); a sender waiting on a full port completes when a receive
 * frees a slot; NOT_AVAILABLE (zero time-out) and TIMED_OUT; PRIORITY discipline among
 * waiting receivers; CLEAR_QUEUING_PORT; status counts; and the error codes of every
 * queuing service.
 *
 * @module frame=100 windows=0:90 duration=1000
 * @port <Queuing_Port Name="OUT" MaxMessageSize="16" Direction="SOURCE" MaxNbMessages="2"/>
 * @port <Queuing_Port Name="IN" MaxMessageSize="16" Direction="DESTINATION" MaxNbMessages="2"/>
 * @port <Queuing_Port Name="OUT2" MaxMessageSize="8" Direction="SOURCE" MaxNbMessages="4"/>
 * @port <Queuing_Port Name="IN2" MaxMessageSize="8" Direction="DESTINATION" MaxNbMessages="4"/>
 * @channel <Channel ChannelIdentifier="1"><Source><Standard_Partition PartitionIdentifier="1" PortName="OUT"/></Source><Destination><Standard_Partition PartitionIdentifier="1" PortName="IN"/></Destination></Channel>
 * @channel <Channel ChannelIdentifier="2"><Source><Standard_Partition PartitionIdentifier="1" PortName="OUT2"/></Source><Destination><Standard_Partition PartitionIdentifier="1" PortName="IN2"/></Destination></Channel>
 */
#include "../conformance.h"

static QUEUING_PORT_ID_TYPE out, in, out2, in2;
static PROCESS_ID_TYPE rx, tx, lo, hi;

static const char *tmo(SYSTEM_TIME_TYPE t)
{
    static char ring[4][24];
    static int next;
    char *b = ring[next++ % 4];
    if (t == INFINITE_TIME_VALUE)
        return "INFINITE";
    if (t < 0) {
        snprintf(b, 24, "%lldns", (long long)t);
        return b;
    }
    snprintf(b, 24, "%lldms", (long long)(t / MS));
    return b;
}

static const char *pname(QUEUING_PORT_ID_TYPE p)
{
    return p == out ? "OUT" : p == in ? "IN" : p == out2 ? "OUT2" : p == in2 ? "IN2" : "bad id";
}

static void send(const char *who, QUEUING_PORT_ID_TYPE p, const char *msg, int len,
                 SYSTEM_TIME_TYPE timeout)
{
    RETURN_CODE_TYPE rc;
    SEND_QUEUING_MESSAGE(p, (MESSAGE_ADDR_TYPE)msg, len, timeout, &rc);
    T("%s: SEND_QUEUING_MESSAGE(%s, %.*s, %s) -> %s", who, pname(p), len > 16 ? 16 : len, msg,
      tmo(timeout), rc_name(rc));
}

static void receive(const char *who, QUEUING_PORT_ID_TYPE p, SYSTEM_TIME_TYPE timeout)
{
    RETURN_CODE_TYPE rc;
    APEX_BYTE msg[17];
    MESSAGE_SIZE_TYPE len = -1;
    memset(msg, 0, sizeof msg);
    RECEIVE_QUEUING_MESSAGE(p, timeout, msg, &len, &rc);
    T("%s: RECEIVE_QUEUING_MESSAGE(%s, %s) -> %s '%s' len=%d", who, pname(p), tmo(timeout),
      rc_name(rc), (char *)msg, (int)len);
}

static void show(QUEUING_PORT_ID_TYPE p)
{
    RETURN_CODE_TYPE rc;
    QUEUING_PORT_STATUS_TYPE st;
    memset(&st, 0, sizeof st);
    GET_QUEUING_PORT_STATUS(p, &st, &rc);
    T("ctl: GET_QUEUING_PORT_STATUS(%s) -> %s nb=%d max_nb=%d size=%d dir=%s waiting=%d",
      pname(p), rc_name(rc), (int)st.NB_MESSAGE, (int)st.MAX_NB_MESSAGE,
      (int)st.MAX_MESSAGE_SIZE, st.PORT_DIRECTION == SOURCE ? "SOURCE" : "DESTINATION",
      (int)st.WAITING_PROCESSES);
}

static void rx_main(void)
{
    T("rx: waits");
    receive("rx", in, INFINITE_TIME_VALUE);
    T("rx: waits");
    receive("rx", in, INFINITE_TIME_VALUE);
    STOP_SELF();
}

static void tx_main(void)
{
    T("tx: waits to send m5");
    send("tx", out, "m5", 2, INFINITE_TIME_VALUE);
    STOP_SELF();
}

static void lo_main(void)
{
    receive("lo", in2, INFINITE_TIME_VALUE);
    STOP_SELF();
}

static void hi_main(void)
{
    receive("hi", in2, INFINITE_TIME_VALUE);
    STOP_SELF();
}

static void ctl_main(void)
{
    RETURN_CODE_TYPE rc;
    QUEUING_PORT_ID_TYPE id;
    CREATE_QUEUING_PORT(N("IN"), 16, 2, DESTINATION, FIFO, &id, &rc);
    TRC("ctl: CREATE_QUEUING_PORT in NORMAL", rc);
    /* rx (priority 30) waits on the empty port: each send hands it a message. */
    show(in);
    send("ctl", out, "m1", 2, 0);
    send("ctl", out, "m2", 2, 0);
    /* Fill the queue: the third is refused at once or after the time-out. */
    send("ctl", out, "m3", 2, 0);
    send("ctl", out, "m4", 2, 0);
    show(out);
    send("ctl", out, "m5", 2, 0);
    send("ctl", out, "m5", 2, 30 * MS);
    start(tx);
    show(out);
    receive("ctl", in, 0);
    show(in);
    receive("ctl", in, 0);
    receive("ctl", in, 0);
    receive("ctl", in, 0);
    receive("ctl", in, 30 * MS);
    /* CLEAR_QUEUING_PORT. */
    send("ctl", out, "c1", 2, 0);
    send("ctl", out, "c2", 2, 0);
    CLEAR_QUEUING_PORT(in, &rc);
    TRC("ctl: CLEAR_QUEUING_PORT(IN)", rc);
    show(in);
    /* PRIORITY discipline: lo waits first, hi second; the first message goes to hi. */
    start(lo);
    start(hi);
    show(in2);
    send("ctl", out2, "p1", 2, 0);
    send("ctl", out2, "p2", 2, 0);
    /* Errors. */
    send("ctl", out, "0123456789abcdefX", 17, 0);
    send("ctl", out, "", 0, 0);
    send("ctl", in, "x", 1, 0);
    send("ctl", 4242, "x", 1, 0);
    send("ctl", out, "x", 1, -5);
    receive("ctl", out, 0);
    receive("ctl", in, -5);
    receive("ctl", 4242, 0);
    CLEAR_QUEUING_PORT(out, &rc);
    TRC("ctl: CLEAR_QUEUING_PORT(OUT)", rc);
    CLEAR_QUEUING_PORT(4242, &rc);
    TRC("ctl: CLEAR_QUEUING_PORT(bad id)", rc);
    {
        QUEUING_PORT_STATUS_TYPE st;
        QUEUING_PORT_ID_TYPE id2 = 0;
        GET_QUEUING_PORT_STATUS(4242, &st, &rc);
        TRC("ctl: GET_QUEUING_PORT_STATUS(bad id)", rc);
        GET_QUEUING_PORT_ID(N("IN2"), &id2, &rc);
        T("ctl: GET_QUEUING_PORT_ID(IN2) -> %s same=%s", rc_name(rc), id2 == in2 ? "yes" : "no");
        GET_QUEUING_PORT_ID(N("NOPE"), &id2, &rc);
        TRC("ctl: GET_QUEUING_PORT_ID(NOPE)", rc);
    }
    /* Preemption locked: a send that would wait is INVALID_MODE, a zero time-out is not. */
    send("ctl", out, "f1", 2, 0);
    send("ctl", out, "f2", 2, 0);
    {
        LOCK_LEVEL_TYPE l;
        LOCK_PREEMPTION(&l, &rc);
        send("ctl", out, "f3", 2, 10 * MS);
        receive("ctl", in2, 10 * MS);
        send("ctl", out, "f3", 2, 0);
        UNLOCK_PREEMPTION(&l, &rc);
    }
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    QUEUING_PORT_ID_TYPE id;
    CREATE_QUEUING_PORT(N("NOPE"), 16, 2, SOURCE, FIFO, &id, &rc);
    TRC("main: CREATE_QUEUING_PORT(not configured)", rc);
    CREATE_QUEUING_PORT(N("OUT"), 16, 3, SOURCE, FIFO, &id, &rc);
    TRC("main: CREATE_QUEUING_PORT(OUT, wrong number of messages)", rc);
    CREATE_QUEUING_PORT(N("OUT"), 15, 2, SOURCE, FIFO, &id, &rc);
    TRC("main: CREATE_QUEUING_PORT(OUT, wrong size)", rc);
    CREATE_QUEUING_PORT(N("OUT"), 16, 2, DESTINATION, FIFO, &id, &rc);
    TRC("main: CREATE_QUEUING_PORT(OUT, wrong direction)", rc);
    CREATE_QUEUING_PORT(N("OUT"), 16, 2, SOURCE, 9, &id, &rc);
    TRC("main: CREATE_QUEUING_PORT(OUT, bad discipline)", rc);
    CREATE_QUEUING_PORT(N("OUT"), 16, 2, SOURCE, FIFO, &out, &rc);
    TRC("main: CREATE_QUEUING_PORT(OUT)", rc);
    CREATE_QUEUING_PORT(N("OUT"), 16, 2, SOURCE, FIFO, &id, &rc);
    TRC("main: CREATE_QUEUING_PORT(OUT again)", rc);
    CREATE_QUEUING_PORT(N("IN"), 16, 2, DESTINATION, FIFO, &in, &rc);
    TRC("main: CREATE_QUEUING_PORT(IN)", rc);
    CREATE_QUEUING_PORT(N("OUT2"), 8, 4, SOURCE, FIFO, &out2, &rc);
    TRC("main: CREATE_QUEUING_PORT(OUT2)", rc);
    CREATE_QUEUING_PORT(N("IN2"), 8, 4, DESTINATION, PRIORITY, &in2, &rc);
    TRC("main: CREATE_QUEUING_PORT(IN2, PRIORITY)", rc);
    /* The main process may not wait. */
    {
        APEX_BYTE m[16];
        MESSAGE_SIZE_TYPE len;
        RECEIVE_QUEUING_MESSAGE(in, 10 * MS, m, &len, &rc);
        TRC("main: RECEIVE_QUEUING_MESSAGE(IN, 10ms) on empty", rc);
    }
    rx = mkproc("rx", rx_main, 30);
    tx = mkproc("tx", tx_main, 30);
    lo = mkproc("lo", lo_main, 20);
    hi = mkproc("hi", hi_main, 25);
    start(rx);
    start(mkproc("ctl", ctl_main, 10));
    go_normal();
    return 1;
}
