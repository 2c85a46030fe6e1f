/* A well-behaved neighbour for the isolation suite: one periodic APEX process released at
 * the start of the partition's window prints, at every activation, a sequence number (its
 * message stream) and how late it started after the window start (its window-start
 * lateness, from its own clock). Arguments: NAME MAJOR_FRAME_NS START:DUR[,...] (the first
 * window's start is the release instant within the frame). */
#include "window_check.h"

static struct window_check wc;

static void steady(void)
{
    RETURN_CODE_TYPE rc;
    for (long long seq = 0;; seq++) {
        PERIODIC_WAIT(&rc);
        SYSTEM_TIME_TYPE t;
        GET_TIME(&t, &rc);
        long long off = ((t - wc.start[0]) % wc.frame + wc.frame) % wc.frame;
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
