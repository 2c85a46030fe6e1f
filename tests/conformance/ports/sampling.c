/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * ports/sampling - sampling ports over a channel looped back into the same partition
 * (source OUT -> destinations IN, refresh 50 ms, and IN2, refresh 1 s): creation rules (configuration match,
 * initialisation only), write/read of the latest message, validity from the refresh period,
 * NO_ACTION on an empty port, the error codes of every sampling service, and the Part 2
 * services (READ_UPDATED_SAMPLING_MESSAGE, GET_SAMPLING_PORT_CURRENT_STATUS,
 * READ_SAMPLING_MESSAGE_CONDITIONAL).
 *
 * @module frame=100 windows=0:90 duration=1000
 * @port <Sampling_Port Name="OUT" MaxMessageSize="16" Direction="SOURCE"/>
 * @port <Sampling_Port Name="IN" MaxMessageSize="16" Direction="DESTINATION" RefreshRateSeconds="0.05"/>
 * @port <Sampling_Port Name="IN2" MaxMessageSize="16" Direction="DESTINATION" RefreshRateSeconds="1"/>
 * @port <Sampling_Port Name="SPARE" MaxMessageSize="16" Direction="DESTINATION" RefreshRateSeconds="0.05"/>
 * @channel <Channel ChannelIdentifier="1"><Source><Standard_Partition PartitionIdentifier="1" PortName="OUT"/></Source><Destination><Standard_Partition PartitionIdentifier="1" PortName="IN"/></Destination><Destination><Standard_Partition PartitionIdentifier="1" PortName="IN2"/></Destination></Channel>
 * @channel <Channel ChannelIdentifier="2"><Source><Pseudo_Partition Name="nowhere" partita:File="/dev/null"/></Source><Destination><Standard_Partition PartitionIdentifier="1" PortName="SPARE"/></Destination></Channel>
 */
#include "../conformance.h"

static SAMPLING_PORT_ID_TYPE out, in, in2;

static const char *validity(VALIDITY_TYPE v) { return v == VALID ? "VALID" : "INVALID"; }
static const char *updated(UPDATED_TYPE u)
{
    return u == NEW_MESSAGE ? "NEW_MESSAGE" : u == CONSUMED_MESSAGE ? "CONSUMED_MESSAGE" : "EMPTY_PORT";
}

static void write_msg(SAMPLING_PORT_ID_TYPE id, const char *m, int len)
{
    RETURN_CODE_TYPE rc;
    WRITE_SAMPLING_MESSAGE(id, (MESSAGE_ADDR_TYPE)m, len, &rc);
    T("WRITE_SAMPLING_MESSAGE(%s, len %d) -> %s", id == out ? "OUT" : id == in ? "IN" : "bad id",
      len, rc_name(rc));
}

static void read_msg(SAMPLING_PORT_ID_TYPE id)
{
    RETURN_CODE_TYPE rc;
    APEX_BYTE m[17];
    MESSAGE_SIZE_TYPE len = -1;
    VALIDITY_TYPE v = VALID;
    memset(m, 0, sizeof m);
    READ_SAMPLING_MESSAGE(id, m, &len, &v, &rc);
    T("READ_SAMPLING_MESSAGE(%s) -> %s '%s' len=%d %s", id == out ? "OUT" : id == in ? "IN" : "bad id",
      rc_name(rc), (char *)m, (int)len, validity(v));
}

static void status(void)
{
    RETURN_CODE_TYPE rc;
    SAMPLING_PORT_STATUS_TYPE st;
    memset(&st, 0, sizeof st);
    GET_SAMPLING_PORT_STATUS(in, &st, &rc);
    T("GET_SAMPLING_PORT_STATUS(IN) -> %s refresh=%lldms size=%d dir=%s last=%s", rc_name(rc),
      (long long)(st.REFRESH_PERIOD / MS), (int)st.MAX_MESSAGE_SIZE,
      st.PORT_DIRECTION == DESTINATION ? "DESTINATION" : "SOURCE", validity(st.LAST_MSG_VALIDITY));
}

static void current(void)
{
    RETURN_CODE_TYPE rc;
    SAMPLING_PORT_CURRENT_STATUS_TYPE st;
    memset(&st, 0, sizeof st);
    GET_SAMPLING_PORT_CURRENT_STATUS(in, &st, &rc);
    T("GET_SAMPLING_PORT_CURRENT_STATUS(IN) -> %s age=%s updated=%s stamped=%s", rc_name(rc),
      st.MESSAGE_AGE == FRESH ? "FRESH" : "STALE", updated(st.UPDATED),
      st.TIME_STAMP > 0 ? "yes" : "no");
}

static void read_updated(void)
{
    RETURN_CODE_TYPE rc;
    APEX_BYTE m[17];
    MESSAGE_SIZE_TYPE len = -1;
    UPDATED_TYPE u = NEW_MESSAGE;
    memset(m, 0, sizeof m);
    READ_UPDATED_SAMPLING_MESSAGE(in, m, &len, &u, &rc);
    T("READ_UPDATED_SAMPLING_MESSAGE(IN) -> %s '%s' len=%d %s", rc_name(rc), (char *)m, (int)len,
      updated(u));
}

static void worker(void)
{
    RETURN_CODE_TYPE rc;
    SAMPLING_PORT_ID_TYPE id;
    CREATE_SAMPLING_PORT(N("SPARE"), 16, DESTINATION, 50 * MS, &id, &rc);
    TRC("NORMAL: CREATE_SAMPLING_PORT(SPARE)", rc);
    read_msg(in);
    read_updated();
    current();
    write_msg(out, "first", 5);
    write_msg(out, "second!", 7);
    current();
    read_msg(in);
    status();
    current();
    read_updated();
    /* The second destination sees the same message, independently. */
    {
        APEX_BYTE m[17];
        MESSAGE_SIZE_TYPE len = -1;
        VALIDITY_TYPE v = INVALID;
        memset(m, 0, sizeof m);
        READ_SAMPLING_MESSAGE(in2, m, &len, &v, &rc);
        T("READ_SAMPLING_MESSAGE(IN2) -> %s '%s' len=%d %s", rc_name(rc), (char *)m, (int)len,
          validity(v));
    }
    write_msg(out, "third", 5);
    read_updated();
    read_updated();
    /* Conditional read: the message is older than "now", newer than 0. */
    {
        APEX_BYTE m[17];
        MESSAGE_SIZE_TYPE len = -1;
        SYSTEM_TIME_TYPE ts = -1, t0 = now_ns();
        memset(m, 0, sizeof m);
        READ_SAMPLING_MESSAGE_CONDITIONAL(in, t0 + MS, m, &len, &ts, &rc);
        T("READ_SAMPLING_MESSAGE_CONDITIONAL(IN, later) -> %s len=%d", rc_name(rc), (int)len);
        READ_SAMPLING_MESSAGE_CONDITIONAL(in, 0, m, &len, &ts, &rc);
        T("READ_SAMPLING_MESSAGE_CONDITIONAL(IN, 0) -> %s '%s' len=%d stamp<=now %s", rc_name(rc),
          (char *)m, (int)len, ts > 0 && ts <= t0 ? "yes" : "no");
        READ_SAMPLING_MESSAGE_CONDITIONAL(out, 0, m, &len, &ts, &rc);
        TRC("READ_SAMPLING_MESSAGE_CONDITIONAL(OUT, 0)", rc);
    }
    /* Validity: 80 ms later the message is older than the 50 ms refresh period. */
    TIMED_WAIT(80 * MS, &rc);
    read_msg(in);
    status();
    current();
    write_msg(out, "fresh", 5);
    read_msg(in);
    status();
    /* Errors. */
    write_msg(out, "0123456789abcdefX", 17);
    write_msg(out, "", 0);
    write_msg(in, "x", 1);
    write_msg(12345, "x", 1);
    read_msg(out);
    read_msg(-1);
    {
        SAMPLING_PORT_STATUS_TYPE st;
        SAMPLING_PORT_ID_TYPE id2 = 0;
        GET_SAMPLING_PORT_STATUS(777, &st, &rc);
        TRC("GET_SAMPLING_PORT_STATUS(bad id)", rc);
        GET_SAMPLING_PORT_ID(N("IN"), &id2, &rc);
        T("GET_SAMPLING_PORT_ID(IN) -> %s same=%s", rc_name(rc), id2 == in ? "yes" : "no");
        GET_SAMPLING_PORT_ID(N("SPARE"), &id2, &rc);
        TRC("GET_SAMPLING_PORT_ID(SPARE, not created)", rc);
        GET_SAMPLING_PORT_ID(N("NOPE"), &id2, &rc);
        TRC("GET_SAMPLING_PORT_ID(NOPE)", rc);
    }
    end();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    SAMPLING_PORT_ID_TYPE id;
    CREATE_SAMPLING_PORT(N("NOPE"), 16, SOURCE, 0, &id, &rc);
    TRC("CREATE_SAMPLING_PORT(not configured)", rc);
    CREATE_SAMPLING_PORT(N("OUT"), 8, SOURCE, 0, &id, &rc);
    TRC("CREATE_SAMPLING_PORT(OUT, wrong size)", rc);
    CREATE_SAMPLING_PORT(N("OUT"), 16, DESTINATION, 0, &id, &rc);
    TRC("CREATE_SAMPLING_PORT(OUT, wrong direction)", rc);
    CREATE_SAMPLING_PORT(N("OUT"), 16, 7, 0, &id, &rc);
    TRC("CREATE_SAMPLING_PORT(OUT, bad direction)", rc);
    CREATE_SAMPLING_PORT(N("IN"), 16, DESTINATION, 40 * MS, &id, &rc);
    TRC("CREATE_SAMPLING_PORT(IN, wrong refresh)", rc);
    CREATE_SAMPLING_PORT(N("OUT"), 16, SOURCE, 0, &out, &rc);
    TRC("CREATE_SAMPLING_PORT(OUT)", rc);
    CREATE_SAMPLING_PORT(N("OUT"), 16, SOURCE, 0, &id, &rc);
    TRC("CREATE_SAMPLING_PORT(OUT again)", rc);
    CREATE_SAMPLING_PORT(N("IN"), 16, DESTINATION, 50 * MS, &in, &rc);
    TRC("CREATE_SAMPLING_PORT(IN)", rc);
    CREATE_SAMPLING_PORT(N("IN2"), 16, DESTINATION, 1000 * MS, &in2, &rc);
    TRC("CREATE_SAMPLING_PORT(IN2)", rc);
    start(mkproc("worker", worker, 10));
    go_normal();
    return 1;
}
