/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A well-behaved neighbour for the isolation suite: one periodic APEX process released at
 * the start of the partition's window prints, at every activation, a sequence number (its
 * message stream) and how late it started after the window start (its window-start
 * lateness, from its own clock). Arguments: NAME MAJOR_FRAME_NS START:DUR[,...] [TOKEN
 * [ROLE]] (the first window's start is the release instant within the frame; TOKEN only
 * names the process for the test).
 *
 * ROLE, for a module with the suite's channels:
 *   send  also sends "m<seq>" on queuing port FAR_OUT and writes it on sampling port
 *         FAR_SAMPLE at every activation ("PORTERR ..." on any failure);
 *   recv  also receives every message waiting on queuing port NEXT_IN at every activation
 *         and prints "PORTMSG seq=<n>" for each (its stream over the channel). */
#include "window_check.h"

static struct window_check wc;
static const char *role = "";
static QUEUING_PORT_ID_TYPE qport;
static SAMPLING_PORT_ID_TYPE sport;

static void port_name(char *dst, const char *src)
{
    memset(dst, 0, sizeof(NAME_TYPE));
    strncpy(dst, src, sizeof(NAME_TYPE) - 1);
}

static void ports(long long seq)
{
    RETURN_CODE_TYPE rc;
    char m[16];
    if (strcmp(role, "send") == 0) {
        int len = snprintf(m, sizeof m, "m%lld", seq);
        SEND_QUEUING_MESSAGE(qport, (MESSAGE_ADDR_TYPE)m, len, 0, &rc);
        if (rc != NO_ERROR)
            printf("PORTERR send seq=%lld rc=%d\n", seq, (int)rc);
        WRITE_SAMPLING_MESSAGE(sport, (MESSAGE_ADDR_TYPE)m, len, &rc);
        if (rc != NO_ERROR)
            printf("PORTERR write seq=%lld rc=%d\n", seq, (int)rc);
    } else if (strcmp(role, "recv") == 0) {
        for (;;) {
            MESSAGE_SIZE_TYPE len = 0;
            char buf[17];
            RECEIVE_QUEUING_MESSAGE(qport, 0, (MESSAGE_ADDR_TYPE)buf, &len, &rc);
            if (rc == NOT_AVAILABLE)
                break;
            if (rc != NO_ERROR || len <= 1 || len > 16 || buf[0] != 'm') {
                printf("PORTERR receive rc=%d len=%d\n", (int)rc, (int)len);
                break;
            }
            buf[len] = 0;
            printf("PORTMSG seq=%s\n", buf + 1);
        }
    }
}

static void steady(void)
{
    RETURN_CODE_TYPE rc;
    for (long long seq = 0;; seq++) {
        PERIODIC_WAIT(&rc);
        SYSTEM_TIME_TYPE t;
        GET_TIME(&t, &rc);
        long long off = ((t - wc.start[0]) % wc.frame + wc.frame) % wc.frame;
        ports(seq);
        printf("STEADY seq=%lld late_ns=%lld\n", seq, off);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    PARTITION_STATUS_TYPE st;
    wc_parse(&wc, argc, argv);
    if (argc > 5)
        role = argv[5];
    char name[sizeof(NAME_TYPE)];
    if (strcmp(role, "send") == 0) {
        port_name(name, "FAR_OUT");
        CREATE_QUEUING_PORT(name, 16, 8, SOURCE, FIFO, &qport, &rc);
        if (rc != NO_ERROR)
            printf("PORTERR create FAR_OUT rc=%d\n", (int)rc);
        port_name(name, "FAR_SAMPLE");
        CREATE_SAMPLING_PORT(name, 16, SOURCE, 1000000000, &sport, &rc);
        if (rc != NO_ERROR)
            printf("PORTERR create FAR_SAMPLE rc=%d\n", (int)rc);
    } else if (strcmp(role, "recv") == 0) {
        port_name(name, "NEXT_IN");
        CREATE_QUEUING_PORT(name, 16, 8, DESTINATION, FIFO, &qport, &rc);
        if (rc != NO_ERROR)
            printf("PORTERR create NEXT_IN rc=%d\n", (int)rc);
    }
    GET_PARTITION_STATUS(&st, &rc);
    memset(&a, 0, sizeof a);
    strncpy(a.NAME, "steady", sizeof a.NAME);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)steady;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = 10;
    a.PERIOD = st.PERIOD;
    /* No deadline: a window lost to something outside the module (another real-time
     * program on the machine) must not stop the stream through the health monitor. */
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.DEADLINE = SOFT;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
