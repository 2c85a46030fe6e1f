/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile: tries, one APEX process per attack, to reach a neighbour or the host.
 * Arguments: NAME MAJOR_FRAME_NS START:DUR PIDFILE, where PIDFILE will hold the host pid of a
 * neighbour partition (then that of the manager, unused here), written by the test once the
 * module runs.
 *
 * A driver process (lowest priority) STARTs the attack processes one after the other; each
 * has a higher priority, so it runs at once. An attack refused by the seccomp filter never
 * returns: the runtime raises ILLEGAL_REQUEST and stops the process (the test reads the
 * partition-level error records). An attack that returns prints
 * "RESULT <name> rc=<rc> errno=<errno>" and stops itself. */
#define _GNU_SOURCE
#include "process.h"
#include "window_check.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static struct window_check wc;
static const char *pidfile;
static long target;

static long a_kill(void) { return kill((pid_t)target, SIGKILL); }
static long a_kill_all(void) { return kill(-1, SIGKILL); }
static long a_tkill(void) { return syscall(SYS_tkill, target, SIGKILL); }
static long a_ptrace(void) { return ptrace(PTRACE_ATTACH, (pid_t)target, 0, 0); }
static long a_vm_read(void)
{
    char buf[16];
    struct iovec l = {buf, sizeof buf}, r = {(void *)0x400000, sizeof buf};
    return process_vm_readv((pid_t)target, &l, 1, &r, 1, 0);
}
static long a_setscheduler(void)
{
    struct sched_param sp = {.sched_priority = 99};
    return sched_setscheduler(0, SCHED_FIFO, &sp);
}
static long a_setpriority(void) { return setpriority(PRIO_PROCESS, 0, -20); }
static long a_affinity(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    return sched_setaffinity((pid_t)target, sizeof s, &s);
}
static long a_mount(void) { return mount("none", "/tmp", "tmpfs", 0, NULL); }
static long a_unshare(void) { return unshare(CLONE_NEWUSER | CLONE_NEWNS); }
static long a_setuid(void) { return syscall(SYS_setuid, 0); }
static long a_bpf(void) { return syscall(SYS_bpf, 0, NULL, 0); }
static long a_perf(void) { return syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0); }
static long a_module(void) { return syscall(SYS_init_module, NULL, 0, ""); }
static long a_socket(void) { return socket(AF_INET, SOCK_STREAM, 0); }
static long a_proc_mem(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/mem", target);
    return open(path, O_RDWR);
}
static long a_cgroup(void)
{
    /* Escape from its cgroups (and so from the freezer) by joining the root group. */
    return open("/sys/fs/cgroup/freezer/cgroup.procs", O_WRONLY);
}
static long a_rt99(void)
{
    /* Allowed call, refused value: above RLIMIT_RTPRIO (on hosts where it can be set). */
    struct sched_param sp = {.sched_priority = 99};
    return sched_setparam(0, &sp);
}
static volatile sig_atomic_t got_usr1;
static void on_usr1(int s) { (void)s; got_usr1 = 1; }
static long a_self_signal(void)
{
    /* Control: a signal to itself is allowed. */
    signal(SIGUSR1, on_usr1);
    long r = raise(SIGUSR1);
    return r == 0 && got_usr1 ? 0 : -1;
}

struct attack {
    const char *name;
    long (*fn)(void);
    PROCESS_ID_TYPE pid;
};
static struct attack attacks[] = {
    {"self-signal", a_self_signal, 0}, {"kill", a_kill, 0},
    {"kill-all", a_kill_all, 0},       {"tkill", a_tkill, 0},
    {"ptrace", a_ptrace, 0},           {"process_vm_readv", a_vm_read, 0},
    {"sched_setscheduler", a_setscheduler, 0},
    {"setpriority", a_setpriority, 0}, {"sched_setaffinity", a_affinity, 0},
    {"mount", a_mount, 0},             {"unshare", a_unshare, 0},
    {"setuid", a_setuid, 0},           {"bpf", a_bpf, 0},
    {"perf_event_open", a_perf, 0},    {"init_module", a_module, 0},
    {"socket", a_socket, 0},           {"proc-mem", a_proc_mem, 0},
    {"cgroup-escape", a_cgroup, 0},    {"rt-priority-99", a_rt99, 0},
};
#define N_ATTACKS (int)(sizeof attacks / sizeof attacks[0])

static void attack_body(void)
{
    RETURN_CODE_TYPE rc;
    PROCESS_ID_TYPE me;
    GET_MY_ID(&me, &rc);
    for (int i = 0; i < N_ATTACKS; i++) {
        if (attacks[i].pid == me) {
            errno = 0;
            long r = attacks[i].fn();
            printf("RESULT %s rc=%ld errno=%d\n", attacks[i].name, r, r < 0 ? errno : 0);
            fflush(stdout);
        }
    }
    STOP_SELF();
}

static void driver(void)
{
    RETURN_CODE_TYPE rc;
    for (;;) {
        FILE *f = fopen_when_there(pidfile);
        if (f) {
            int ok = fscanf(f, "%ld", &target) == 1;
            fclose(f);
            if (ok && target > 0)
                break;
        }
        TIMED_WAIT(10000000, &rc);
    }
    printf("ATTACKER target %ld\n", target);
    for (int i = 0; i < N_ATTACKS; i++) {
        printf("ATTACK %s\n", attacks[i].name);
        fflush(stdout);
        START(attacks[i].pid, &rc);
    }
    printf("ATTACKS done\n");
    fflush(stdout);
    for (;;)
        TIMED_WAIT(1000000000, &rc);
}

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    wc_parse(&wc, argc, argv);
    if (argc < 5) {
        fprintf(stderr, "usage: %s NAME FRAME START:DUR PIDFILE\n", argv[0]);
        return 2;
    }
    pidfile = argv[4];
    for (int i = 0; i < N_ATTACKS; i++) {
        char name[32];
        snprintf(name, sizeof name, "a%d", i);
        attacks[i].pid = mk(name, attack_body, 50);
    }
    PROCESS_ID_TYPE d = mk("driver", driver, 1);
    START(d, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
