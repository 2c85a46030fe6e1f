/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Shared by the test partitions: NAME_TYPE copies and the creation of their APEX processes
 * (SOFT deadline, no time capacity, 64 KiB stack). */
#ifndef PROCESS_H
#define PROCESS_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ARINC653.h>

/* fopen(path, mode), or, when it fails, "ERROR fopen <path> (<mode>): <reason>" on stdout
 * and stderr and exit status 1: a test reads a clear failure, never a NULL FILE * later. */
static inline FILE *must_fopen(const char *path, const char *mode)
{
    FILE *f = fopen(path, mode);
    if (!f) {
        const char *why = strerror(errno);
        printf("ERROR fopen %s (%s): %s\n", path, mode, why);
        fflush(stdout);
        fprintf(stderr, "ERROR fopen %s (%s): %s\n", path, mode, why);
        exit(1);
    }
    return f;
}

/* fopen(path, "r") of a file another party writes later: NULL while it does not exist yet;
 * any other failure (a directory the partition's uid cannot reach) ends as must_fopen does. */
static inline FILE *fopen_when_there(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f && errno != ENOENT)
        return must_fopen(path, "r");
    return f;
}

/* A NUL-padded NAME_TYPE copy of s, cut to NAME_TYPE (rotating buffers: four live at once). */
static inline char *nm(const char *s)
{
    static NAME_TYPE n[4];
    static int k;
    char *r = n[k++ % 4];
    memset(r, 0, sizeof(NAME_TYPE));
    memcpy(r, s, strlen(s) < sizeof(NAME_TYPE) ? strlen(s) : sizeof(NAME_TYPE));
    return r;
}

/* Attributes of a process of the test partitions (PERIOD `period`: INFINITE_TIME_VALUE for an
 * aperiodic one). */
static inline PROCESS_ATTRIBUTE_TYPE process_attrs(const char *name, void (*entry)(void),
                                                   PRIORITY_TYPE prio, SYSTEM_TIME_TYPE period)
{
    PROCESS_ATTRIBUTE_TYPE a;
    memset(&a, 0, sizeof a);
    memcpy(a.NAME, nm(name), sizeof a.NAME);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)entry;
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = prio;
    a.PERIOD = period;
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.DEADLINE = SOFT;
    return a;
}

/* Creates an aperiodic process; a failure prints "CREATE_PROCESS <name>: <rc>" and ends the
 * partition with status 1. */
static inline PROCESS_ID_TYPE mk(const char *name, void (*entry)(void), PRIORITY_TYPE prio)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a = process_attrs(name, entry, prio, INFINITE_TIME_VALUE);
    PROCESS_ID_TYPE pid = 0;
    CREATE_PROCESS(&a, &pid, &rc);
    if (rc != NO_ERROR) {
        printf("CREATE_PROCESS %s: %d\n", name, (int)rc);
        exit(1);
    }
    return pid;
}

/* Creates and starts a process; a failure prints "ERROR process <name> <rc>". */
static inline void start_process(const char *name, void (*entry)(void), PRIORITY_TYPE prio,
                                 SYSTEM_TIME_TYPE period)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a = process_attrs(name, entry, prio, period);
    PROCESS_ID_TYPE pid;
    CREATE_PROCESS(&a, &pid, &rc);
    if (rc == NO_ERROR)
        START(pid, &rc);
    if (rc != NO_ERROR)
        printf("ERROR process %s %d\n", name, (int)rc);
}

/* Start of this process's first mapping whose /proc/self/maps line names `name`, not
 * `exclude` (NULL: nothing excluded), with permissions `perms` (e.g. "rw-s"); NULL if none.
 * For the hostile test partitions that attack their own port memory. */
static inline void *own_mapping(const char *name, const char *exclude, const char *perms)
{
    FILE *f = must_fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long lo = 0;
    while (fgets(line, sizeof line, f)) {
        char p[8] = {0};
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx %7s", &a, &b, p) == 3 && strstr(line, name) &&
            !(exclude && strstr(line, exclude)) && strcmp(p, perms) == 0) {
            lo = a;
            break;
        }
    }
    fclose(f);
    return (void *)lo;
}
#endif
