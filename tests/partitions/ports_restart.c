/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Port restart test partition (crates/cli/tests/ports_pseudo.rs, restart test).
 *
 *   ports_restart writer FILE   first incarnation: sends messages 1..50 on queuing port OUT,
 *                               saves its port id in FILE and asks for a COLD_START; the
 *                               restarted incarnation tries the saved (stale) id, prints
 *                               `STALE rc=<code>`, then sends 51..100 with its new id.
 *   ports_restart reader        receives and prints `READER got <n> in order` at 100 (or
 *                               `ERROR ...` on a gap). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ARINC653.h>
#include "process.h"

static QUEUING_PORT_ID_TYPE port;
static const char *file;
static PARTITION_STATUS_TYPE st;

static void writer(void)
{
    RETURN_CODE_TYPE rc;
    int first = st.START_CONDITION == NORMAL_START;
    if (!first) {
        FILE *f = must_fopen(file, "r");
        int old = 0;
        if (fscanf(f, "%d", &old) != 1)
            printf("ERROR no saved id in %s\n", file);
        fclose(f);
        unsigned char m = 0;
        SEND_QUEUING_MESSAGE(old, &m, 1, 0, &rc);
        printf("STALE old=%d new=%d rc=%d\n", old, (int)port, (int)rc);
    }
    for (int i = first ? 1 : 51; i <= (first ? 50 : 100); i++) {
        SEND_QUEUING_MESSAGE(port, (MESSAGE_ADDR_TYPE)&i, sizeof i, INFINITE_TIME_VALUE, &rc);
        if (rc != NO_ERROR)
            printf("ERROR send %d rc=%d\n", i, (int)rc);
    }
    if (first) {
        FILE *f = must_fopen(file, "w");
        if (fprintf(f, "%d\n", (int)port) < 0 || fclose(f) != 0) {
            printf("ERROR writing %s\n", file);
            fflush(stdout);
            exit(1);
        }
        printf("WRITER restarting\n");
        fflush(stdout);
        SET_PARTITION_MODE(COLD_START, &rc);
    }
    printf("WRITER done\n");
    fflush(stdout);
    STOP_SELF();
}

static void reader(void)
{
    RETURN_CODE_TYPE rc;
    MESSAGE_SIZE_TYPE len;
    for (int expect = 1; expect <= 100; expect++) {
        int v = 0;
        RECEIVE_QUEUING_MESSAGE(port, INFINITE_TIME_VALUE, (MESSAGE_ADDR_TYPE)&v, &len, &rc);
        if (rc != NO_ERROR || v != expect)
            printf("ERROR expected %d got %d rc=%d\n", expect, v, (int)rc);
    }
    printf("READER got 100 in order\n");
    fflush(stdout);
    STOP_SELF();
}

/* What this partition holds of the channels: open descriptors from 16 up, and whether the
 * peer-owned area (descriptor 17 for a reader: the writer's data; 18 for a writer: the
 * reader's state) can be mapped writable. */
static void access_report(int writer)
{
    int open_fds = 0;
    for (int fd = 16; fd < 64; fd++)
        if (fcntl(fd, F_GETFD) >= 0)
            open_fds++;
    int peer = writer ? 18 : 17, own = writer ? 17 : 18;
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, peer, 0);
    int peer_err = p == MAP_FAILED ? errno : 0;
    if (p != MAP_FAILED)
        munmap(p, 4096);
    void *q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, own, 0);
    int own_ok = q != MAP_FAILED;
    if (own_ok)
        munmap(q, 4096);
    struct stat data, state;
    fstat(17, &data);
    fstat(18, &state);
    printf("OWNERS data=%d:%d/%o state=%d:%d/%o\n", (int)data.st_uid, (int)data.st_gid,
           (unsigned)(data.st_mode & 0777), (int)state.st_uid, (int)state.st_gid,
           (unsigned)(state.st_mode & 0777));
    printf("ACCESS fds=%d peer_writable=%s own_writable=%s\n", open_fds,
           peer_err == EACCES ? "no" : "YES", own_ok ? "yes" : "no");
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ATTRIBUTE_TYPE a;
    PROCESS_ID_TYPE pid;
    int w = argc > 1 && strcmp(argv[1], "writer") == 0;
    file = argc > 2 ? argv[2] : "";
    GET_PARTITION_STATUS(&st, &rc);
    access_report(w);
    CREATE_QUEUING_PORT(nm(w ? "OUT" : "IN"), 4, 8, w ? SOURCE : DESTINATION, FIFO, &port, &rc);
    if (rc != NO_ERROR)
        printf("ERROR create %d\n", (int)rc);
    memset(&a, 0, sizeof a);
    memcpy(a.NAME, nm("main"), sizeof a.NAME);
    a.ENTRY_POINT = (SYSTEM_ADDRESS_TYPE)(w ? writer : reader);
    a.STACK_SIZE = 65536;
    a.BASE_PRIORITY = 10;
    a.PERIOD = INFINITE_TIME_VALUE;
    a.TIME_CAPACITY = INFINITE_TIME_VALUE;
    a.DEADLINE = SOFT;
    CREATE_PROCESS(&a, &pid, &rc);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
