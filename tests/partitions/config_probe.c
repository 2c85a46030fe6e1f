/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Configuration probe: prints what the partition sees of its configuration through APEX
 * calls, so that crates/cli/tests/config_reaches.rs can check that every configured value
 * arrives where it is used.
 *
 *   config_probe ROLE TOKEN [PORT...]
 *
 * ROLE is one of
 *   probe  creates processes against its stack total (300000, 300000, 300000, 200000, 1
 *          bytes), pins two of them to cores 0 and 1 (each reports where it runs), writes
 *          its ports once in NORMAL mode;
 *   peer   creates processes until CREATE_PROCESS refuses (at most 10), tells which of a
 *          high-priority late-deadline and a low-priority early-deadline process runs first,
 *          reports the release time of a periodic process, reads its ports;
 *   sys    (system partition) reads the system-partition flags of itself and of the probe,
 *          the module schedule ids, and at its third activation requests schedule "flight";
 *   hm     at its first start raises an APPLICATION_ERROR without a handler in its
 *          initialisation, after a restart once more from a process in NORMAL mode.
 * PORT is S:NAME:SIZE:DIRECTION:REFRESH_NS or Q:NAME:SIZE:NB:DIRECTION; each port is first
 * created with one byte more (which must be refused), then as given.
 *
 * Every role reports its partition status and the limit of its memory cgroup at start.
 * Every line is "CP ROLE WHAT key=value ...". TOKEN only marks the processes of the run. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ARINC653.h>
#include "process.h"

static const char *role;
static PARTITION_STATUS_TYPE pstat;
static SAMPLING_PORT_ID_TYPE s_port = -1;
static QUEUING_PORT_ID_TYPE q_port = -1;
static int s_source, q_source;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One whole line per call (processes on both cores print at the same time). */
static void out(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("CP %s %s\n", role, line);
    fflush(stdout);
}

static PORT_DIRECTION_TYPE direction(const char *s)
{
    return strcmp(s, "SOURCE") == 0 ? SOURCE : DESTINATION;
}

static void create_port(char *spec)
{
    RETURN_CODE_TYPE wrong, rc;
    char *kind = strtok(spec, ":"), *name = strtok(NULL, ":");
    long size = atol(strtok(NULL, ":"));
    if (kind[0] == 'S') {
        PORT_DIRECTION_TYPE dir = direction(strtok(NULL, ":"));
        SYSTEM_TIME_TYPE refresh = atoll(strtok(NULL, ":"));
        SAMPLING_PORT_ID_TYPE id;
        SAMPLING_PORT_STATUS_TYPE st;
        CREATE_SAMPLING_PORT(nm(name), size + 1, dir, refresh, &id, &wrong);
        CREATE_SAMPLING_PORT(nm(name), size, dir, refresh, &s_port, &rc);
        GET_SAMPLING_PORT_STATUS(s_port, &st, &rc);
        s_source = dir == SOURCE;
        out("sampling name=%s wrong_size_rc=%d rc=%d size=%d direction=%d refresh=%lld", name,
            (int)wrong, (int)rc, (int)st.MAX_MESSAGE_SIZE, (int)st.PORT_DIRECTION,
            (long long)st.REFRESH_PERIOD);
    } else {
        long nb = atol(strtok(NULL, ":"));
        PORT_DIRECTION_TYPE dir = direction(strtok(NULL, ":"));
        QUEUING_PORT_ID_TYPE id;
        QUEUING_PORT_STATUS_TYPE st;
        RETURN_CODE_TYPE wrong_nb;
        CREATE_QUEUING_PORT(nm(name), size + 1, nb, dir, FIFO, &id, &wrong);
        CREATE_QUEUING_PORT(nm(name), size, nb + 1, dir, FIFO, &id, &wrong_nb);
        CREATE_QUEUING_PORT(nm(name), size, nb, dir, FIFO, &q_port, &rc);
        GET_QUEUING_PORT_STATUS(q_port, &st, &rc);
        q_source = dir == SOURCE;
        out("queuing name=%s wrong_size_rc=%d wrong_nb_rc=%d rc=%d size=%d nb=%d direction=%d",
            name, (int)wrong, (int)wrong_nb, (int)rc, (int)st.MAX_MESSAGE_SIZE,
            (int)st.MAX_NB_MESSAGE, (int)st.PORT_DIRECTION);
    }
}

/* The memory limit of the partition's memory cgroup (v1 or v2), -1 if unreadable. */
static long long memory_limit(void)
{
    char line[512], path[700];
    long long limit = -1;
    FILE *f = must_fopen("/proc/self/cgroup", "r");
    path[0] = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *ctl = strchr(line, ':'), *cg = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!cg)
            continue;
        *cg++ = 0;
        if (strcmp(ctl + 1, "memory") == 0)
            snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", cg);
        else if (ctl[1] == 0 && !path[0])
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", cg);
    }
    fclose(f);
    FILE *l = path[0] ? fopen(path, "r") : NULL;
    if (l && fscanf(l, "%lld", &limit) != 1)
        limit = -1;
    if (l)
        fclose(l);
    return limit;
}

/* The calling process's status. */
static PROCESS_STATUS_TYPE my_status(void)
{
    PROCESS_ID_TYPE me;
    PROCESS_STATUS_TYPE st;
    RETURN_CODE_TYPE rc;
    GET_MY_ID(&me, &rc);
    GET_PROCESS_STATUS(me, &st, &rc);
    return st;
}

/* probe: a pinned process reports its core, and the one on core 0 writes the ports. */
static void where(void)
{
    PROCESSOR_CORE_ID_TYPE core = -1;
    PROCESS_STATUS_TYPE st = my_status();
    RETURN_CODE_TYPE rc;
    GET_MY_PROCESSOR_CORE_ID(&core, &rc);
    out("core process=%s core=%d cpu=%d", st.ATTRIBUTES.NAME, (int)core, sched_getcpu());
    if (core == 0) {
        char msg[64];
        memset(msg, 'm', sizeof msg);
        if (s_port >= 0 && s_source) {
            WRITE_SAMPLING_MESSAGE(s_port, (MESSAGE_ADDR_TYPE)msg, 37, &rc);
            out("wrote sampling rc=%d", (int)rc);
        }
        if (q_port >= 0 && q_source) {
            SEND_QUEUING_MESSAGE(q_port, (MESSAGE_ADDR_TYPE)msg, 53, 0, &rc);
            out("sent queuing rc=%d", (int)rc);
        }
    }
    STOP_SELF();
}

static void probe(void)
{
    static const long sizes[] = {300000, 300000, 300000, 200000, 1};
    PROCESS_ID_TYPE pid[5];
    RETURN_CODE_TYPE rc[5], r;
    for (int i = 0; i < 5; i++) {
        char name[8];
        snprintf(name, sizeof name, "st%d", i + 1);
        PROCESS_ATTRIBUTE_TYPE a = process_attrs(name, where, 10, INFINITE_TIME_VALUE);
        a.STACK_SIZE = sizes[i];
        pid[i] = -1;
        CREATE_PROCESS(&a, &pid[i], &rc[i]);
    }
    out("stack rc1=%d rc2=%d rc3=%d rc4=%d rc5=%d", (int)rc[0], (int)rc[1], (int)rc[2],
        (int)rc[3], (int)rc[4]);
    /* st1 on core 0, st2 on core 1 (both created whatever the stack total). */
    for (int i = 0; i < 2; i++) {
        INITIALIZE_PROCESS_CORE_AFFINITY(pid[i], i, &r);
        out("affinity process=st%d core=%d rc=%d", i + 1, i, (int)r);
        START(pid[i], &r);
    }
}

static int first_done;

static void first(void)
{
    PROCESS_STATUS_TYPE st = my_status();
    if (!first_done++)
        out("first process=%s", st.ATTRIBUTES.NAME);
    STOP_SELF();
}

static void periodic(void)
{
    RETURN_CODE_TYPE rc;
    int sampled = 0, queued = 0;
    char buf[128];
    for (int n = 0;; n++) {
        PERIODIC_WAIT(&rc);
        PROCESS_STATUS_TYPE st = my_status();
        if (n < 3)
            out("release at=%lld capacity=%lld", (long long)(st.DEADLINE_TIME -
                                                             st.ATTRIBUTES.TIME_CAPACITY),
                (long long)st.ATTRIBUTES.TIME_CAPACITY);
        if (s_port >= 0 && !sampled) {
            MESSAGE_SIZE_TYPE len = 0;
            VALIDITY_TYPE v;
            READ_SAMPLING_MESSAGE(s_port, (MESSAGE_ADDR_TYPE)buf, &len, &v, &rc);
            if (rc == NO_ERROR) {
                sampled = 1;
                out("received sampling len=%d", (int)len);
            }
        }
        if (q_port >= 0 && !queued) {
            MESSAGE_SIZE_TYPE len = 0;
            RECEIVE_QUEUING_MESSAGE(q_port, 0, (MESSAGE_ADDR_TYPE)buf, &len, &rc);
            if (rc == NO_ERROR) {
                queued = 1;
                out("received queuing len=%d", (int)len);
            }
        }
    }
}

static void peer(void)
{
    PROCESS_ID_TYPE id;
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE hi = process_attrs("hi", first, 50, INFINITE_TIME_VALUE);
    PROCESS_ATTRIBUTE_TYPE lo = process_attrs("lo", first, 10, INFINITE_TIME_VALUE);
    PROCESS_ATTRIBUTE_TYPE per = process_attrs("per", periodic, 30, pstat.PERIOD);
    A_PARTITION_STATUS_TYPE a;
    hi.TIME_CAPACITY = 10 * pstat.PERIOD; /* late deadline, high priority */
    lo.TIME_CAPACITY = pstat.PERIOD;      /* early deadline, low priority */
    per.TIME_CAPACITY = pstat.PERIOD;
    CREATE_PROCESS(&hi, &id, &rc);
    START(id, &rc);
    CREATE_PROCESS(&lo, &id, &rc);
    START(id, &rc);
    CREATE_PROCESS(&per, &id, &rc);
    START(id, &rc);
    int created = 3;
    for (; created < 10; created++) {
        char name[8];
        snprintf(name, sizeof name, "x%d", created);
        PROCESS_ATTRIBUTE_TYPE x = process_attrs(name, first, 1, INFINITE_TIME_VALUE);
        CREATE_PROCESS(&x, &id, &rc);
        if (rc != NO_ERROR)
            break;
    }
    out("processes created=%d refused_rc=%d", created, (int)rc);
    GET_A_PARTITION_STATUS(pstat.IDENTIFIER, &a, &rc);
    out("system-status rc=%d", (int)rc);
}

static SCHEDULE_ID_TYPE schedule_id(const char *name)
{
    SCHEDULE_NAME_TYPE n;
    SCHEDULE_ID_TYPE id = -1;
    RETURN_CODE_TYPE rc;
    memset(n, 0, sizeof n);
    memcpy(n, name, strlen(name));
    GET_MODULE_SCHEDULE_ID(n, &id, &rc);
    return id;
}

static void schedules(const char *what)
{
    SCHEDULE_STATUS_TYPE s;
    RETURN_CODE_TYPE rc;
    GET_MODULE_SCHEDULE_STATUS(&s, &rc);
    out("%s rc=%d current=%d next=%d", what, (int)rc, (int)s.CURRENT_SCHEDULE,
        (int)s.NEXT_SCHEDULE);
}

static void sys_worker(void)
{
    RETURN_CODE_TYPE rc;
    for (int n = 1;; n++) {
        if (n == 3) {
            SET_MODULE_SCHEDULE(schedule_id("flight"), &rc);
            out("request flight rc=%d", (int)rc);
        }
        if (n <= 12)
            schedules("schedule");
        PERIODIC_WAIT(&rc);
    }
}

static void sys(int probe_id)
{
    A_PARTITION_STATUS_TYPE me, other;
    RETURN_CODE_TYPE rc1, rc2, rc;
    PROCESS_ID_TYPE id;
    GET_A_PARTITION_STATUS(pstat.IDENTIFIER, &me, &rc1);
    GET_A_PARTITION_STATUS(probe_id, &other, &rc2);
    out("system-status rc=%d system=%u probe_rc=%d probe_system=%u probe_cores=%u", (int)rc1,
        (unsigned)me.SYSTEM_PARTITION, (int)rc2, (unsigned)other.SYSTEM_PARTITION,
        (unsigned)other.NUM_ASSIGNED_CORES);
    out("schedule-ids boot=%d flight=%d", (int)schedule_id("boot"), (int)schedule_id("flight"));
    PROCESS_ATTRIBUTE_TYPE w = process_attrs("worker", sys_worker, 5, pstat.PERIOD);
    CREATE_PROCESS(&w, &id, &rc);
    START(id, &rc);
}

/* hm: an APPLICATION_ERROR raised by a process in NORMAL mode, without a handler. */
static void raiser(void)
{
    RETURN_CODE_TYPE rc;
    RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "process", 7, &rc);
    out("raised-in-process rc=%d", (int)rc);
    STOP_SELF();
}

static void hm(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE id;
    if (pstat.START_CONDITION == NORMAL_START) {
        RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE) "init", 4, &rc);
        out("raised rc=%d", (int)rc);
    } else {
        PROCESS_ATTRIBUTE_TYPE a = process_attrs("raiser", raiser, 10, INFINITE_TIME_VALUE);
        CREATE_PROCESS(&a, &id, &rc);
        START(id, &rc);
    }
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    if (argc < 3) {
        fprintf(stderr, "usage: %s ROLE TOKEN [PORT...]\n", argv[0]);
        return 2;
    }
    role = argv[1];
    GET_PARTITION_STATUS(&pstat, &rc);
    out("init id=%d period=%lld duration=%lld cores=%u mode=%d start=%d argc=%d",
        (int)pstat.IDENTIFIER, (long long)pstat.PERIOD, (long long)pstat.DURATION,
        (unsigned)pstat.NUM_ASSIGNED_CORES, (int)pstat.OPERATING_MODE,
        (int)pstat.START_CONDITION, argc);
    out("memory limit=%lld", memory_limit());
    /* Memory blocks (Memory_Requirements RegionName): the peer has two, the others none. */
    {
        static const char *const names[] = {"peer_table", "peer_calibration", "missing"};
        for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
            MEMORY_BLOCK_STATUS_TYPE mb;
            MEMORY_BLOCK_NAME_TYPE n;
            memset(&mb, 0, sizeof mb);
            memset(n, 0, sizeof n);
            memcpy(n, names[i], strlen(names[i]));
            GET_MEMORY_BLOCK_STATUS(n, &mb, &rc);
            /* A READ_WRITE block takes a write and reads it back; its memory starts zeroed. */
            int zero = -1, wrote = -1;
            if (rc == NO_ERROR && mb.MODE == MB_READ_WRITE && mb.SIZE > 0) {
                zero = mb.ADDRESS[mb.SIZE - 1] == 0;
                mb.ADDRESS[mb.SIZE - 1] = 0x5a;
                wrote = mb.ADDRESS[mb.SIZE - 1] == 0x5a;
            }
            out("memblock name=%s rc=%d size=%d mode=%d zero=%d wrote=%d", names[i], (int)rc,
                (int)mb.SIZE, (int)mb.MODE, zero, wrote);
        }
    }
    for (int i = 3; i < argc; i++)
        create_port(argv[i]);
    if (strcmp(role, "probe") == 0)
        probe();
    else if (strcmp(role, "peer") == 0)
        peer();
    else if (strcmp(role, "sys") == 0)
        sys(11);
    else if (strcmp(role, "hm") == 0)
        hm();
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
