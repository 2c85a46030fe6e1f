/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * buffer/send_receive - messages are delivered in FIFO order; a receiver
 * waiting on an empty buffer gets the message directly (and, being above the
 * sender, runs at once); a sender waiting on a full buffer completes when a
 * receive frees a slot; zero time-outs give NOT_AVAILABLE, others TIMED_OUT.
 */
#include "../conformance.h"

static PROCESS_ID_TYPE rx, tx;
static BUFFER_ID_TYPE b;

static const char *tmo(SYSTEM_TIME_TYPE t)
{
    static char ring[4][24];
    static int next;
    char *b = ring[next++ % 4];
    if (t == INFINITE_TIME_VALUE)
        return "INFINITE";
    snprintf(b, 24, "%lldms", (long long)(t / MS));
    return b;
}

static void send(const char *who, const char *msg, SYSTEM_TIME_TYPE timeout)
{
    RETURN_CODE_TYPE rc;
    SEND_BUFFER(b, (MESSAGE_ADDR_TYPE)msg, (MESSAGE_SIZE_TYPE)strlen(msg), timeout, &rc);
    T("%s: SEND_BUFFER(%s, %s) -> %s", who, msg, tmo(timeout), rc_name(rc));
}

static void receive(const char *who, SYSTEM_TIME_TYPE timeout)
{
    RETURN_CODE_TYPE rc;
    APEX_BYTE msg[17];
    MESSAGE_SIZE_TYPE len = -1;
    memset(msg, 0, sizeof msg);
    RECEIVE_BUFFER(b, timeout, msg, &len, &rc);
    if (rc == NO_ERROR)
        T("%s: RECEIVE_BUFFER(%s) -> NO_ERROR %s len=%d", who, tmo(timeout), (char *)msg,
          (int)len);
    else
        T("%s: RECEIVE_BUFFER(%s) -> %s", who, tmo(timeout), rc_name(rc));
}

static void show(void)
{
    RETURN_CODE_TYPE rc;
    BUFFER_STATUS_TYPE st;
    GET_BUFFER_STATUS(b, &st, &rc);
    T("ctl: GET_BUFFER_STATUS -> %s nb=%d max_nb=%d size=%d waiting=%d", rc_name(rc),
      (int)st.NB_MESSAGE, (int)st.MAX_NB_MESSAGE, (int)st.MAX_MESSAGE_SIZE,
      (int)st.WAITING_PROCESSES);
}

static void rx_main(void)
{
    T("rx: RECEIVE_BUFFER(INFINITE)");
    receive("rx", INFINITE_TIME_VALUE);
    T("rx: RECEIVE_BUFFER(INFINITE)");
    receive("rx", INFINITE_TIME_VALUE);
    STOP_SELF();
}

static void tx_main(void)
{
    T("tx: SEND_BUFFER(m5, INFINITE)");
    send("tx", "m5", INFINITE_TIME_VALUE);
    STOP_SELF();
}

static void ctl_main(void)
{
    show();
    send("ctl", "m1", 0);
    send("ctl", "m2", 0);
    send("ctl", "m3", 0);
    send("ctl", "m4", 0);
    show();
    send("ctl", "m5", 0);
    send("ctl", "m5", 30 * MS);
    start(tx);
    show();
    receive("ctl", 0);
    show();
    receive("ctl", 0);
    receive("ctl", 0);
    receive("ctl", 0);
    receive("ctl", 30 * MS);
    show();
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    CREATE_BUFFER(N("b"), 16, 2, FIFO, &b, &rc);
    TRC("main: CREATE_BUFFER(size 16, 2 messages)", rc);
    rx = mkproc("rx", rx_main, 30);
    tx = mkproc("tx", tx_main, 30);
    start(rx);
    start(mkproc("ctl", ctl_main, 10));
    go_normal();
    return 1;
}
