/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Exercises partition mode changes: the first incarnation asks for a COLD_START restart after
 * three activations; the restarted one reports its start condition and, after three more
 * activations, sets the partition to IDLE. */
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>
#include "process.h"

static PARTITION_STATUS_TYPE status;

static void worker(void)
{
    RETURN_CODE_TYPE rc;
    for (int n = 1;; n++) {
        PERIODIC_WAIT(&rc);
        printf("MODE activation %d start_condition %d\n", n, (int)status.START_CONDITION);
        if (n == 3) {
            OPERATING_MODE_TYPE next =
                status.START_CONDITION == NORMAL_START ? COLD_START : IDLE;
            printf("MODE requesting %s\n", next == COLD_START ? "COLD_START" : "IDLE");
            fflush(stdout);
            SET_PARTITION_MODE(next, &rc);
            printf("MODE unexpected return %d\n", (int)rc);
        }
    }
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    GET_PARTITION_STATUS(&status, &rc);
    printf("MODE init mode %d start_condition %d\n", (int)status.OPERATING_MODE,
           (int)status.START_CONDITION);
    a = process_attrs("worker", worker, 5, status.PERIOD);
    a.TIME_CAPACITY = status.PERIOD;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
