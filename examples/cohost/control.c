/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* cohost example, core 0: a 50 Hz control loop with a HARD deadline. Each activation
 * measures its release lateness (GET_TIME against its release instant, a multiple of the
 * partition period from the module epoch), does a fixed amount of
 * arithmetic and publishes its cycle count and lateness on the STATUS sampling port. Every
 * 50 cycles it prints the worst lateness so far. Built with `partita cc`. */
#include "cohost.h"

static SAMPLING_PORT_ID_TYPE status_port;
static SYSTEM_TIME_TYPE period;

static double work(unsigned n)
{
    double x = 1.0;
    for (unsigned i = 0; i < n; i++) {
        x = x * 1.000001 + 1e-9 * (double)(i & 7);
    }
    return x;
}

static void loop(void)
{
    RETURN_CODE_TYPE rc;
    int64_t worst = 0;
    volatile double sink = 0;
    for (uint64_t cycle = 0;; cycle++) {
        SYSTEM_TIME_TYPE now;
        GET_TIME(&now, &rc);
        /* The release of this activation: the period start at or before now (the partition's
         * periods start at the frame start, APEX time 0). */
        SYSTEM_TIME_TYPE release = now - now % period;
        int64_t late = (int64_t)(now - release);
        if (late > worst) {
            worst = late;
        }
        sink = work(200000);
        struct status_msg m = {.cycle = cycle, .lateness_ns = late};
        WRITE_SAMPLING_MESSAGE(status_port, (MESSAGE_ADDR_TYPE)&m, sizeof m, &rc);
        if (cycle % 50 == 49) {
            printf("control: %llu cycles, release lateness max %.1f us\n",
                   (unsigned long long)cycle + 1, (double)worst / 1e3);
            fflush(stdout);
        }
        PERIODIC_WAIT(&rc);
        if (rc != NO_ERROR) {
            printf("control: PERIODIC_WAIT returned %d\n", (int)rc);
            return;
        }
    }
    (void)sink;
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE status;
    GET_PARTITION_STATUS(&status, &rc);
    period = status.PERIOD;
    SAMPLING_PORT_NAME_TYPE name = "STATUS";
    CREATE_SAMPLING_PORT(name, sizeof(struct status_msg), SOURCE, 100000000, &status_port,
                         &rc);
    if (rc != NO_ERROR) {
        printf("control: CREATE_SAMPLING_PORT failed: %d\n", (int)rc);
        return 1;
    }
    return run_periodic("control", "loop", loop);
}
