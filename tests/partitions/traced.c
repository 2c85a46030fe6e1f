/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The partition of the tracing end-to-end test (crates/cli/tests/trace.rs): one periodic
 * APEX process "worker" (period = the partition's period) that, at every activation, writes
 * (ROLE "writer") the sampling message "m<seq>" on port T_OUT or reads (ROLE "reader") port
 * T_IN, records its sequence number on application trace stream 7 (PARTITA_TRACE_EVENT) and
 * prints "TRACED <role> seq=<n> rc=<return code of the trace call>". Argument: ROLE
 * ("writer", "reader", or anything else: no port). */
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>

static const char *role = "";
static SAMPLING_PORT_ID_TYPE port;
static int has_port;

static void worker(void)
{
    RETURN_CODE_TYPE rc, trc;
    for (long long seq = 0;; seq++) {
        PERIODIC_WAIT(&rc);
        char m[16];
        if (has_port && strcmp(role, "writer") == 0) {
            int len = snprintf(m, sizeof m, "m%lld", seq);
            WRITE_SAMPLING_MESSAGE(port, (MESSAGE_ADDR_TYPE)m, len, &rc);
        } else if (has_port) {
            MESSAGE_SIZE_TYPE len = 0;
            VALIDITY_TYPE v;
            READ_SAMPLING_MESSAGE(port, (MESSAGE_ADDR_TYPE)m, &len, &v, &rc);
        }
        PARTITA_TRACE_EVENT(7, seq, &trc);
        printf("TRACED %s seq=%lld rc=%d\n", role, seq, (int)trc);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    PARTITION_STATUS_TYPE st;
    NAME_TYPE name;
    role = argc > 1 ? argv[1] : "";
    memset(name, 0, sizeof name);
    if (strcmp(role, "writer") == 0) {
        strncpy(name, "T_OUT", sizeof name - 1);
        CREATE_SAMPLING_PORT(name, 16, SOURCE, 1000000000, &port, &rc);
        has_port = rc == NO_ERROR;
        if (rc != NO_ERROR)
            printf("PORTERR create rc=%d\n", (int)rc);
    } else if (strcmp(role, "reader") == 0) {
        strncpy(name, "T_IN", sizeof name - 1);
        CREATE_SAMPLING_PORT(name, 16, DESTINATION, 1000000000, &port, &rc);
        has_port = rc == NO_ERROR;
        if (rc != NO_ERROR)
            printf("PORTERR create rc=%d\n", (int)rc);
    }
    GET_PARTITION_STATUS(&st, &rc);
    memset(&a, 0, sizeof a);
    strncpy(a.NAME, "worker", sizeof a.NAME);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)worker;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = 10;
    a.PERIOD = st.PERIOD;
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.DEADLINE = SOFT;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
