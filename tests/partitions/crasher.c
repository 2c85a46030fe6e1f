/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile: crashes in a loop. Its only process writes through a null pointer; the error
 * handler reports the error and restarts the partition (SET_PARTITION_MODE(COLD_START)),
 * whose new incarnation crashes again. */
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>
#include "process.h"

static PARTITION_STATUS_TYPE status;

static void crash(void)
{
    RETURN_CODE_TYPE rc;
    PERIODIC_WAIT(&rc);
    printf("CRASHER crashing (start condition %d)\n", (int)status.START_CONDITION);
    fflush(stdout);
    *(volatile int *)0 = 1;
}

static void handler(void)
{
    RETURN_CODE_TYPE rc;
    ERROR_STATUS_TYPE e;
    GET_ERROR_STATUS(&e, &rc);
    printf("CRASHER error %d, restarting\n", (int)e.ERROR_CODE);
    fflush(stdout);
    SET_PARTITION_MODE(COLD_START, &rc);
    printf("CRASHER unexpected return %d\n", (int)rc);
    STOP_SELF();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    GET_PARTITION_STATUS(&status, &rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)handler, 65536, &rc);
    a = process_attrs("crash", crash, 10, status.PERIOD);
    a.TIME_CAPACITY = status.PERIOD;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
