/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile sampling writer and its reader (crates/cli/tests/ports_pseudo.rs,
 * a_partition_that_corrupts_its_sampling_channel_holds_no_reader). Argument: MODE.
 *
 * MODE corrupt: port OUT (sampling source, 16 bytes; read by partition `reader` and by a
 *   pseudo-partition file). Writes "good <n>" for its first 20 periods, then, through its own
 *   writable mapping of the channel's data area (/proc/self/maps, "partita-sampling-"),
 *   publishes message 1000 in a slot whose counter says otherwise, and keeps it so: at every
 *   later period it flips that counter between odd and even. Prints "CORRUPTED addr=<a>"
 *   once, "ALIVE <n>" every 50 periods.
 * MODE read: port IN (sampling destination). Each period reads it and prints a line when
 *   the outcome changes: "READ rc=<rc> validity=<v> len=<l> text=<first bytes>", and
 *   "PERIODS <n>" every 50 periods (a reader held in READ_SAMPLING_MESSAGE prints no more). */
#define _GNU_SOURCE
#include "process.h"
#include <stdint.h>

static SAMPLING_PORT_ID_TYPE port;

static void corrupt(void)
{
    RETURN_CODE_TYPE rc;
    char m[16];
    volatile uint64_t *area = NULL, *seq = NULL;
    for (int n = 1;; n++) {
        if (n <= 20) {
            int len = snprintf(m, sizeof m, "good %d", n);
            WRITE_SAMPLING_MESSAGE(port, (MESSAGE_ADDR_TYPE)m, len, &rc);
            if (rc != NO_ERROR)
                printf("ERROR write %d\n", (int)rc);
        } else if (n == 21) {
            area = own_mapping("partita-sampling-", NULL, "rw-s");
            if (!area) {
                printf("ERROR no writable sampling area\n");
            } else {
                /* Header: magic, latest. Slot 1 at offset 64 + stride (64 + 16 -> 128). */
                seq = (volatile uint64_t *)((char *)area + 64 + 128);
                area[1] = (uint64_t)1000 << 8 | 1;
                printf("CORRUPTED addr=%p\n", (void *)area);
            }
        } else if (seq) {
            *seq = (uint64_t)n;
        }
        if (n % 50 == 0)
            printf("ALIVE %d\n", n);
        fflush(stdout);
        PERIODIC_WAIT(&rc);
    }
}

static void read_loop(void)
{
    RETURN_CODE_TYPE rc, last_rc = -1;
    VALIDITY_TYPE v, last_v = -1;
    char m[17], last[17] = {0};
    MESSAGE_SIZE_TYPE len;
    for (int n = 1;; n++) {
        memset(m, 0, sizeof m);
        READ_SAMPLING_MESSAGE(port, (MESSAGE_ADDR_TYPE)m, &len, &v, &rc);
        /* Only the kind of text matters ("good ..." or anything else: after the corruption, what
         * the slot held). */
        const char *kind = strncmp(m, "good ", 5) == 0 ? "good" : "other";
        if (rc != last_rc || v != last_v || strcmp(kind, last) != 0) {
            printf("READ rc=%d validity=%d len=%d text=%s\n", (int)rc, (int)v, (int)len, kind);
            last_rc = rc;
            last_v = v;
            snprintf(last, sizeof last, "%s", kind);
        }
        if (n % 50 == 0)
            printf("PERIODS %d\n", n);
        fflush(stdout);
        PERIODIC_WAIT(&rc);
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE st;
    GET_PARTITION_STATUS(&st, &rc);
    int writer = argc > 1 && strcmp(argv[1], "corrupt") == 0;
    CREATE_SAMPLING_PORT(nm(writer ? "OUT" : "IN"), 16, writer ? SOURCE : DESTINATION,
                         1000000000, &port, &rc);
    if (rc != NO_ERROR)
        printf("ERROR create port %d\n", (int)rc);
    start_process(writer ? "corrupt" : "read", writer ? corrupt : read_loop, 10, st.PERIOD);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
