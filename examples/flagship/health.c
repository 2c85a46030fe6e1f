/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* health: the system partition of the flagship example (SystemPartition="true").
 *
 * pbit (aperiodic) runs the power-on built-in test while the module is in its
 * "initialisation" schedule, in which health alone has a long window: it checksums a
 * synthetic 8 MB configuration image, checks every partition's configuration with
 * GET_A_PARTITION_STATUS, then asks for the "running" schedule with SET_MODULE_SCHEDULE
 * (taken at the end of the current major frame). monitor (periodic 1 s) prints the
 * partitions' status (GET_A_PARTITION_STATUS) every 2 s and every new health-monitor
 * logbook record (GET_HM_LOG_STATUS, READ_HM_LOG) as soon as it sees it. */
#include "flagship.h"

#define PARTITIONS 3
static const char *names[PARTITIONS + 1] = {"?", "fcs", "nav", "video"};
static const char *modes[] = {"IDLE", "COLD_START", "WARM_START", "NORMAL"};
static const char *levels[] = {"MODULE", "PARTITION", "PROCESS"};
static const char *actions[] = {"ERROR_HANDLER", "IGNORE", "IDLE", "COLD_START",
                                "WARM_START", "SHUTDOWN", "RESET"};
static unsigned char image[8 << 20];

static void pbit(void)
{
    RETURN_CODE_TYPE rc;
    SYSTEM_TIME_TYPE t0 = flagship_now();
    unsigned crc = 0xffffffffu;
    for (size_t i = 0; i < sizeof image; i++)
        image[i] = (unsigned char)(i * 2654435761u >> 13);
    for (size_t i = 0; i < sizeof image; i++) { /* CRC-32, bitwise: the slow, sure way */
        crc ^= image[i];
        for (int k = 0; k < 8; k++)
            crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
    }
    int ok = 1;
    for (int p = 1; p <= PARTITIONS; p++) {
        A_PARTITION_STATUS_TYPE s;
        GET_A_PARTITION_STATUS(p, &s, &rc);
        if (rc != NO_ERROR) {
            printf("health: PBIT: GET_A_PARTITION_STATUS(%d) failed: %d\n", p, (int)rc);
            ok = 0;
        }
    }
    SCHEDULE_NAME_TYPE name;
    SCHEDULE_ID_TYPE running;
    memset(name, 0, sizeof name);
    strcpy(name, "running");
    GET_MODULE_SCHEDULE_ID(name, &running, &rc);
    printf("health: PBIT %s in %.0f ms (configuration image CRC %08x, %d partitions checked); "
           "SET_MODULE_SCHEDULE(running)\n",
           ok ? "passed" : "FAILED", (flagship_now() - t0) / 1e6, ~crc, PARTITIONS);
    SET_MODULE_SCHEDULE(running, &rc);
    if (rc != NO_ERROR)
        printf("health: SET_MODULE_SCHEDULE refused: %d\n", (int)rc);
    STOP_SELF();
}

static void monitor(void)
{
    RETURN_CODE_TYPE rc;
    long long next = 0;
    for (unsigned n = 1;; n++) {
        HM_LOG_STATUS_TYPE ls;
        GET_HM_LOG_STATUS(&ls, &rc);
        if (rc == NO_ERROR) {
            if (next < ls.FIRST_INDEX)
                next = ls.FIRST_INDEX;
            for (; next < ls.TOTAL; next++) {
                HM_LOG_ENTRY_TYPE e;
                READ_HM_LOG(next, &e, &rc);
                if (rc != NO_ERROR)
                    continue;
                int p = e.PARTITION_ID;
                printf("health: logbook #%lld at %.3f s: %s %s, level %s, action %s: %.*s\n",
                       (long long)e.INDEX, e.TIME / 1e9,
                       p >= 1 && p <= PARTITIONS ? names[p] : "module",
                       flagship_code(e.ERROR_CODE), levels[e.ERROR_LEVEL % 3],
                       actions[e.ACTION % 7], (int)e.LENGTH, (const char *)e.MESSAGE);
            }
        }
        if (n % 2 == 0) {
            SCHEDULE_STATUS_TYPE ss;
            char line[400];
            int at = 0;
            GET_MODULE_SCHEDULE_STATUS(&ss, &rc);
            for (int p = 1; p <= PARTITIONS; p++) {
                A_PARTITION_STATUS_TYPE s;
                GET_A_PARTITION_STATUS(p, &s, &rc);
                if (rc != NO_ERROR)
                    at += snprintf(line + at, sizeof line - at, "  %s: rc %d", names[p],
                                   (int)rc);
                else
                    at += snprintf(line + at, sizeof line - at,
                                   "  %s %s %lld windows %lld hm %u restarts", names[p],
                                   modes[(unsigned)s.OPERATING_MODE % 4], (long long)s.WINDOWS,
                                   (long long)s.HM_EVENTS, (unsigned)s.RESTARTS);
                if (at >= (int)sizeof line)
                    at = sizeof line - 1;
            }
            printf("health: t=%5.2f s schedule %d;%s; logbook %lld records\n",
                   flagship_now() / 1e9, (int)ss.CURRENT_SCHEDULE, line, (long long)ls.TOTAL);
        }
        PERIODIC_WAIT(&rc);
    }
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    flagship_process("health", "monitor", monitor, 1000000000, 1000000000, SOFT, 20);
    flagship_process("health", "pbit", pbit, INFINITE_TIME_VALUE, INFINITE_TIME_VALUE, SOFT, 10);
    printf("health: initialised at t=%.3f s: power-on built-in test running\n",
           flagship_now() / 1e9);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
