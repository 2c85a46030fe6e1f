/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A well-behaved partition: one low-priority APEX process samples the clock and reports
 * whether it ever ran outside the partition's windows. */
#include "window_check.h"

static struct window_check wc;

static void spinner(void) { wc_spin(&wc, "process"); }

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    wc_parse(&wc, argc, argv);
    memset(&a, 0, sizeof a);
    strncpy(a.NAME, "spinner", sizeof a.NAME);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)spinner;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = 1;
    a.PERIOD = INFINITE_TIME_VALUE;
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.DEADLINE = SOFT;
    CREATE_PROCESS(&a, &pid, &rc);
    if (rc != NO_ERROR) {
        printf("CREATE_PROCESS: %d\n", (int)rc);
        return 1;
    }
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
