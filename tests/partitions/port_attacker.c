/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile: attacks port memory (crates/cli/tests/isolation.rs). Arguments:
 *   NAME MAJOR_FRAME_NS START:DUR PIDFILE MODE
 * PIDFILE will hold "<host pid of neighbour far> <host pid of the manager>" (written by the
 * test once the module runs). The partition is the destination of sampling channel 2
 * (port ATK_IN, written by `far`); channel 1 (far -> next, queuing) is not its own.
 *
 * MODE neighbour: tries to reach channel 1's memory
 *   - through /proc/<pid>/fd/<n> of `far` and of the manager (host pids), and of every pid
 *     of its own PID-namespace view;
 *   - through guessed paths (/dev/shm, memfd names);
 *   - through descriptor numbers it was not given (the numbers its neighbours use);
 *   and lists its own descriptors ("FD <n> <link>").
 * MODE readonly: attacks its own read-only mapping of channel 2 (mprotect, reopen
 *   read-write, mmap shared writable, a private copy), then writes to it: the write must
 *   fault (MEMORY_VIOLATION, recorded by the health monitor); a later read still returns
 *   far's messages.
 * Results: "RESULT <what> rc=<rc> errno=<errno>" (and a few counters). */
#define _GNU_SOURCE
#include "process.h"
#include "window_check.h"
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static struct window_check wc;
static const char *pidfile, *mode;
static long far_pid, manager_pid;
static SAMPLING_PORT_ID_TYPE atk_in;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static void result(const char *what, long rc)
{
    out("RESULT %s rc=%ld errno=%d\n", what, rc, rc < 0 ? errno : 0);
}

/* Inodes of its own descriptors (0..1023), to tell its own memory from a neighbour's. */
static dev_t own_dev[64];
static ino_t own_ino[64];
static int n_own;
static void list_own_fds(int print)
{
    n_own = 0;
    for (int fd = 0; fd < 1024; fd++) {
        if (fcntl(fd, F_GETFD) < 0)
            continue;
        char p[64], link[256];
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(p, link, sizeof link - 1);
        link[n > 0 ? n : 0] = 0;
        struct stat st;
        if (fstat(fd, &st) == 0 && n_own < 64) {
            own_dev[n_own] = st.st_dev;
            own_ino[n_own++] = st.st_ino;
        }
        if (print)
            out("FD %d %s\n", fd, link);
    }
}
static int is_own(dev_t dev, ino_t ino)
{
    for (int i = 0; i < n_own; i++)
        if (own_dev[i] == dev && own_ino[i] == ino)
            return 1;
    return 0;
}

/* Processes of its own uid that are not itself: the same partition index of another module
 * running on the host (uids depend on the index only; see docs/threat-model.md). */
static int same_uid_foreign;

/* Tries /proc/<pid>/fd/0..63 (read-only, then read-write): returns how many opened, with
 * the last errno in *err; *foreign counts opened files that are not its own and belong to a
 * process of another uid (those of its own uid are counted in same_uid_foreign). */
static int try_proc_fds(long pid, int *err, int *foreign)
{
    int opened = 0;
    *err = 0;
    char dir[64];
    struct stat pst;
    snprintf(dir, sizeof dir, "/proc/%ld", pid);
    int same_uid = stat(dir, &pst) == 0 && pst.st_uid == getuid();
    for (int k = 0; k < 64; k++) {
        char p[64];
        snprintf(p, sizeof p, "/proc/%ld/fd/%d", pid, k);
        for (int flags = O_RDONLY; flags <= O_RDWR; flags += O_RDWR) {
            errno = 0;
            int fd = open(p, flags | O_CLOEXEC);
            if (fd < 0) {
                if (errno != ENOENT || *err == 0)
                    *err = errno;
                continue;
            }
            opened++;
            struct stat st;
            if (fstat(fd, &st) == 0 && !is_own(st.st_dev, st.st_ino)) {
                char link[256];
                ssize_t n = readlink(p, link, sizeof link - 1);
                link[n > 0 ? n : 0] = 0;
                out("FOREIGN %s %s%s\n", p, link, same_uid ? " (same uid)" : "");
                if (same_uid)
                    same_uid_foreign++;
                else
                    (*foreign)++;
            }
            close(fd);
        }
    }
    return opened;
}

static void attack_neighbour(void)
{
    int err, foreign = 0, opened;
    list_own_fds(1);
    /* Host pids given by the test: outside its PID namespace. */
    opened = try_proc_fds(far_pid, &err, &foreign);
    out("RESULT proc-fd-far opened=%d foreign=%d errno=%d\n", opened, foreign, err);
    foreign = 0;
    opened = try_proc_fds(manager_pid, &err, &foreign);
    out("RESULT proc-fd-manager opened=%d foreign=%d errno=%d\n", opened, foreign, err);
    char p[96];
    snprintf(p, sizeof p, "/proc/%ld/map_files", far_pid);
    errno = 0;
    DIR *d = opendir(p);
    result("map-files-far", d ? 0 : -1);
    if (d)
        closedir(d);
    /* Its PID-namespace view: every process it can list in /proc (with its own PID
     * namespace, itself only). */
    int foreign_ns = 0, opened_ns = 0, pids = 0;
    static long listed[4096];
    d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) && pids < 4096) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (!*end && pid > 0)
            listed[pids++] = pid;
    }
    if (d)
        closedir(d);
    for (int i = 0; i < pids; i++)
        opened_ns += try_proc_fds(listed[i], &err, &foreign_ns);
    out("RESULT ns-view pids=%d opened=%d same-uid=%d foreign=%d\n", pids, opened_ns,
        same_uid_foreign, foreign_ns);
    /* Guessed paths. */
    static const char *paths[] = {
        "/dev/shm/partita-queue-1",
        "/dev/shm/partita-queue-1-read",
        "/dev/shm/partita-sampling-2",
        "/memfd:partita-queue-1 (deleted)",
        "/dev/shm/memfd:partita-queue-1",
    };
    for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        errno = 0;
        int fd = open(paths[i], O_RDWR | O_CLOEXEC);
        char what[96];
        snprintf(what, sizeof what, "path %s", paths[i]);
        result(what, fd);
        if (fd >= 0)
            close(fd);
    }
    /* Named objects in /dev/shm with the names of the manager's memfds (control blocks,
     * port directories, channel areas and read states). Other files there are not the
     * manager's: a module running at the same time may keep its own (the bench's
     * partita-bench-* files). */
    static const char *memfd_names[] = {
        "partita-ctl-", "partita-ports-", "partita-sampling-", "partita-queue-",
    };
    int shm_entries = 0;
    d = opendir("/dev/shm");
    if (d) {
        while ((e = readdir(d)))
            for (unsigned i = 0; i < sizeof memfd_names / sizeof memfd_names[0]; i++)
                if (strstr(e->d_name, memfd_names[i]))
                    shm_entries++;
        closedir(d);
    }
    out("RESULT dev-shm manager-objects=%d\n", shm_entries);
    /* A memfd of the same name is a new, empty file of its own. */
    int m = memfd_create("partita-queue-1", MFD_CLOEXEC);
    struct stat st = {0};
    if (m >= 0)
        fstat(m, &st);
    out("RESULT memfd-same-name rc=%d size=%lld\n", m < 0 ? -1 : 0, (long long)st.st_size);
    if (m >= 0)
        close(m);
    /* Descriptor numbers it was not given: its neighbours' port descriptors (17..19) and
     * beyond. Only those it holds can be mapped. */
    for (int fd = 17; fd <= 24; fd++) {
        if (fcntl(fd, F_GETFD) >= 0)
            continue;
        char what[32];
        snprintf(what, sizeof what, "mmap-fd-%d", fd);
        errno = 0;
        void *a = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
        result(what, a == MAP_FAILED ? -1 : 0);
    }
}

/* Its runtime's mapping of channel 2 and the descriptor behind it. */
static char *map_addr;
static size_t map_len;
static int map_fd = -1;
static void find_mapping(void)
{
    FILE *f = must_fopen("/proc/self/maps", "r");
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, "partita-sampling-2"))
            continue;
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3) {
            map_addr = (char *)lo;
            map_len = hi - lo;
            out("MAP addr=%p perms=%s len=%zu\n", (void *)map_addr, perms, map_len);
        }
        break;
    }
    if (f)
        fclose(f);
    for (int fd = 0; fd < 1024; fd++) {
        char p[64], link[256];
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(p, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = 0;
        if (strstr(link, "partita-sampling-2")) {
            map_fd = fd;
            break;
        }
    }
    out("MAPFD %d\n", map_fd);
}

static int read_latest(const char *when)
{
    RETURN_CODE_TYPE rc;
    MESSAGE_SIZE_TYPE len = 0;
    VALIDITY_TYPE v;
    char buf[17] = {0};
    READ_SAMPLING_MESSAGE(atk_in, (MESSAGE_ADDR_TYPE)buf, &len, &v, &rc);
    if (rc == NO_ERROR && len > 0 && len <= 16) {
        buf[len] = 0;
        out("READ %s rc=%d msg=%s\n", when, (int)rc, buf);
        return atoi(buf + 1);
    }
    out("READ %s rc=%d len=%d\n", when, (int)rc, (int)len);
    return -1;
}

static void attack_readonly(void)
{
    find_mapping();
    if (!map_addr || map_fd < 0) {
        out("RESULT no-mapping rc=-1 errno=0\n");
        return;
    }
    errno = 0;
    result("mprotect-write", mprotect(map_addr, map_len, PROT_READ | PROT_WRITE));
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", map_fd);
    errno = 0;
    result("reopen-rw", open(p, O_RDWR | O_CLOEXEC));
    errno = 0;
    void *a = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
    result("mmap-shared-write", a == MAP_FAILED ? -1 : 0);
    errno = 0;
    a = mmap(NULL, map_len, PROT_READ, MAP_SHARED, map_fd, 0);
    long r = a == MAP_FAILED ? -1 : mprotect(a, map_len, PROT_READ | PROT_WRITE);
    result("mmap-then-mprotect-write", r);
    /* A private copy may be written: it changes nothing for anybody else. */
    errno = 0;
    a = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, map_fd, 0);
    if (a != MAP_FAILED)
        memset(a, 0xff, map_len);
    result("mmap-private-write", a == MAP_FAILED ? -1 : 0);
    read_latest("after-private");
    /* The write itself: must fault (SIGSEGV, SEGV_ACCERR, at the mapping's first byte).
     * Changes the channel header every reader sees if it does not. */
    out("WRITING\n");
    *(volatile uint64_t *)map_addr = 0;
    __sync_synchronize();
    out("RESULT write-returned rc=0 errno=0\n");
}

static void attack(void)
{
    RETURN_CODE_TYPE rc;
    if (strcmp(mode, "neighbour") == 0) {
        attack_neighbour();
    } else {
        for (int i = 0; i < 200 && read_latest("before") < 0; i++)
            TIMED_WAIT(10000000, &rc);
        attack_readonly();
    }
    out("ATTACK returned\n");
    STOP_SELF();
}

static void driver(PROCESS_ID_TYPE attacker)
{
    RETURN_CODE_TYPE rc;
    for (;;) {
        FILE *f = fopen_when_there(pidfile);
        if (f) {
            int ok = fscanf(f, "%ld %ld", &far_pid, &manager_pid) == 2;
            fclose(f);
            if (ok && far_pid > 0 && manager_pid > 0)
                break;
        }
        TIMED_WAIT(10000000, &rc);
    }
    out("ATTACKER target far=%ld manager=%ld\n", far_pid, manager_pid);
    START(attacker, &rc);
    /* The attack process ran (it has the higher priority) and stopped, by itself or by its
     * fault. Its channel still brings far's messages. */
    int first = -1, last = -1;
    for (int i = 0; i < 8; i++) {
        TIMED_WAIT(100000000, &rc);
        int n = read_latest("later");
        if (first < 0)
            first = n;
        last = n;
    }
    out("LATER first=%d last=%d\n", first, last);
    for (;;)
        TIMED_WAIT(1000000000, &rc);
}

static PROCESS_ID_TYPE attack_pid;
static void driver_entry(void) { driver(attack_pid); }

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    wc_parse(&wc, argc, argv);
    if (argc < 6) {
        fprintf(stderr, "usage: %s NAME FRAME START:DUR PIDFILE MODE\n", argv[0]);
        return 2;
    }
    pidfile = argv[4];
    mode = argv[5];
    char name[sizeof(NAME_TYPE)] = {0};
    strncpy(name, "ATK_IN", sizeof name - 1);
    CREATE_SAMPLING_PORT(name, 16, DESTINATION, 1000000000, &atk_in, &rc);
    if (rc != NO_ERROR) {
        printf("CREATE_SAMPLING_PORT ATK_IN: %d\n", (int)rc);
        return 1;
    }
    attack_pid = mk("attack", attack, 50);
    PROCESS_ID_TYPE d = mk("driver", driver_entry, 1);
    START(d, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
