/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A minimal Partita partition: one periodic APEX process that prints the partition's name
 * and the time at each release.  Built with `partita cc examples/hello/hello.c -o hello`. */
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>

static char partition_name[32] = "hello";

static void greeter(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE me;
    GET_MY_ID(&me, &rc);
    for (unsigned activation = 0;; activation++) {
        SYSTEM_TIME_TYPE now;
        GET_TIME(&now, &rc);
        printf("hello from %s (process %d): t = %.6f s, activation %u\n", partition_name,
               (int)me, (double)now / 1e9, activation);
        if (activation == 3) {
            static const char msg[] = "greeter reached its fourth activation";
            REPORT_APPLICATION_MESSAGE((MESSAGE_ADDR_TYPE)msg, (MESSAGE_SIZE_TYPE)strlen(msg), &rc);
        }
        PERIODIC_WAIT(&rc);
        if (rc != NO_ERROR) {
            printf("%s: PERIODIC_WAIT returned %d\n", partition_name, (int)rc);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE status;
    if (argc > 1) {
        strncpy(partition_name, argv[1], sizeof partition_name - 1);
    }
    GET_PARTITION_STATUS(&status, &rc);
    printf("%s: initialising (partition %d, period %.3f s, duration %.3f s, mode %d)\n",
           partition_name, (int)status.IDENTIFIER, (double)status.PERIOD / 1e9,
           (double)status.DURATION / 1e9, (int)status.OPERATING_MODE);

    PROCESS_ATTRIBUTE_TYPE attr;
    memset(&attr, 0, sizeof attr);
    strncpy(attr.NAME, "greeter", sizeof attr.NAME);
    attr.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)greeter;
    attr.STACK_SIZE = 64 * 1024;
    attr.BASE_PRIORITY = 10;
    attr.PERIOD = status.PERIOD;
    attr.TIME_CAPACITY = status.PERIOD;
    attr.DEADLINE = SOFT;

    PROCESS_ID_TYPE pid;
    CREATE_PROCESS(&attr, &pid, &rc);
    if (rc != NO_ERROR) {
        printf("%s: CREATE_PROCESS failed: %d\n", partition_name, (int)rc);
        return 1;
    }
    START(pid, &rc);
    if (rc != NO_ERROR) {
        printf("%s: START failed: %d\n", partition_name, (int)rc);
        return 1;
    }
    SET_PARTITION_MODE(NORMAL, &rc);
    /* Not reached: in NORMAL mode the main process no longer runs. */
    printf("%s: SET_PARTITION_MODE returned %d\n", partition_name, (int)rc);
    return 1;
}
