/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Multiple module schedules (ARINC 653 Part 2) test partition.
 *
 *   msched NAME sys TARGET SPARE [LATE]
 *                                  system partition: at its third activation it checks the
 *                                  error cases, requests SPARE and then TARGET in the same
 *                                  frame (the second replaces the first), and reports the
 *                                  schedule status at every activation; at its fifth it
 *                                  requests LATE, unless it is "-".
 *   msched NAME app TARGET         normal partition: SET_MODULE_SCHEDULE(TARGET) is refused;
 *                                  reports the status at every activation and half a
 *                                  period later.
 *
 * Every line starts with "MS NAME" and carries the partition's APEX time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ARINC653.h>

static const char *me, *role, *target, *spare, *late;
static PARTITION_STATUS_TYPE pstat;

static SYSTEM_TIME_TYPE now(void)
{
    SYSTEM_TIME_TYPE t;
    RETURN_CODE_TYPE rc;
    GET_TIME(&t, &rc);
    return t;
}

static SCHEDULE_ID_TYPE id_of(const char *name, RETURN_CODE_TYPE *rc)
{
    SCHEDULE_NAME_TYPE n;
    SCHEDULE_ID_TYPE id = -1;
    size_t len = strlen(name);
    memset(n, 0, sizeof n);
    memcpy(n, name, len < sizeof n ? len : sizeof n);
    GET_MODULE_SCHEDULE_ID(n, &id, rc);
    return id;
}

static void status(const char *what)
{
    SCHEDULE_STATUS_TYPE s;
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE p;
    memset(&s, 0xff, sizeof s);
    GET_MODULE_SCHEDULE_STATUS(&s, &rc);
    GET_PARTITION_STATUS(&p, &rc);
    printf("MS %s %s t=%lld rc=%d cur=%d next=%d last=%lld period=%lld duration=%lld\n", me,
           what, (long long)now(), (int)rc, (int)s.CURRENT_SCHEDULE, (int)s.NEXT_SCHEDULE,
           (long long)s.TIME_OF_LAST_SCHEDULE_SWITCH, (long long)p.PERIOD,
           (long long)p.DURATION);
}

static void sys_requests(void)
{
    RETURN_CODE_TYPE rc;
    SCHEDULE_STATUS_TYPE s;
    SCHEDULE_ID_TYPE t = id_of(target, &rc);
    printf("MS %s id %s=%d rc=%d\n", me, target, (int)t, (int)rc);
    SCHEDULE_ID_TYPE sp = id_of(spare, &rc);
    printf("MS %s id %s=%d rc=%d\n", me, spare, (int)sp, (int)rc);
    id_of("no_such_schedule", &rc);
    printf("MS %s unknown-name rc=%d\n", me, (int)rc);
    SET_MODULE_SCHEDULE(12345, &rc);
    printf("MS %s invalid-id rc=%d\n", me, (int)rc);
    GET_MODULE_SCHEDULE_STATUS(&s, &rc);
    SET_MODULE_SCHEDULE(s.CURRENT_SCHEDULE, &rc);
    printf("MS %s current rc=%d\n", me, (int)rc);
    SYSTEM_TIME_TYPE before = now();
    SET_MODULE_SCHEDULE(sp, &rc);
    printf("MS %s first-request rc=%d\n", me, (int)rc);
    status("pending-first");
    SET_MODULE_SCHEDULE(t, &rc);
    SYSTEM_TIME_TYPE after = now();
    printf("MS %s second-request rc=%d before=%lld after=%lld\n", me, (int)rc,
           (long long)before, (long long)after);
    status("pending");
}

static void worker(void)
{
    RETURN_CODE_TYPE rc;
    for (int n = 1;; n++) {
        status("tick");
        if (n == 3 && strcmp(role, "sys") == 0)
            sys_requests();
        if (n == 5 && late) {
            SCHEDULE_ID_TYPE l = id_of(late, &rc);
            SET_MODULE_SCHEDULE(l, &rc);
            printf("MS %s late-request id=%d rc=%d\n", me, (int)l, (int)rc);
        }
        if (strcmp(role, "app") == 0) {
            if (n == 2) {
                SCHEDULE_ID_TYPE t = id_of(target, &rc);
                SET_MODULE_SCHEDULE(t, &rc);
                printf("MS %s refused rc=%d\n", me, (int)rc);
            }
            TIMED_WAIT(pstat.PERIOD / 2, &rc);
            status("mid");
        }
        fflush(stdout);
        PERIODIC_WAIT(&rc);
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    if (argc < 4) {
        fprintf(stderr, "usage: %s NAME sys|app TARGET [SPARE]\n", argv[0]);
        return 2;
    }
    me = argv[1];
    role = argv[2];
    target = argv[3];
    spare = argc > 4 ? argv[4] : argv[3];
    late = argc > 5 && strcmp(argv[5], "-") != 0 ? argv[5] : NULL;
    GET_PARTITION_STATUS(&pstat, &rc);
    printf("MS %s init t=%lld start_condition=%d mode=%d period=%lld\n", me, (long long)now(),
           (int)pstat.START_CONDITION, (int)pstat.OPERATING_MODE, (long long)pstat.PERIOD);
    memset(&a, 0, sizeof a);
    strncpy(a.NAME, "worker", sizeof a.NAME);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)worker;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = 5;
    a.PERIOD = pstat.PERIOD;
    a.TIME_CAPACITY = pstat.PERIOD;
    a.DEADLINE = SOFT;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
