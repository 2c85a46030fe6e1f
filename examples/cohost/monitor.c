/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* cohost example, core 1 (beside the general-purpose partition): a 50 Hz monitor with a
 * HARD deadline that reads the control loop's STATUS and counts the valid messages. Every 50
 * activations it prints what it saw. Built with `partita cc`. */
#include "cohost.h"

static SAMPLING_PORT_ID_TYPE status_port;

static void watch(void)
{
    RETURN_CODE_TYPE rc;
    unsigned long valid = 0;
    int64_t worst = 0;
    for (unsigned long n = 1;; n++) {
        struct status_msg m;
        MESSAGE_SIZE_TYPE len = 0;
        VALIDITY_TYPE validity = INVALID;
        READ_SAMPLING_MESSAGE(status_port, (MESSAGE_ADDR_TYPE)&m, &len, &validity, &rc);
        if (rc == NO_ERROR && validity == VALID && len == sizeof m) {
            valid++;
            if (m.lateness_ns > worst) {
                worst = m.lateness_ns;
            }
        }
        if (n % 50 == 0) {
            printf("monitor: %lu reads, %lu valid, control lateness max %.1f us\n", n, valid,
                   (double)worst / 1e3);
            fflush(stdout);
        }
        PERIODIC_WAIT(&rc);
        if (rc != NO_ERROR) {
            printf("monitor: PERIODIC_WAIT returned %d\n", (int)rc);
            return;
        }
    }
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    SAMPLING_PORT_NAME_TYPE name = "STATUS";
    CREATE_SAMPLING_PORT(name, sizeof(struct status_msg), DESTINATION, 100000000,
                         &status_port, &rc);
    if (rc != NO_ERROR) {
        printf("monitor: CREATE_SAMPLING_PORT failed: %d\n", (int)rc);
        return 1;
    }
    return run_periodic("monitor", "watch", watch);
}
