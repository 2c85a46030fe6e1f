/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A hostile partition: blocks every signal it can, forks a child and spawns threads, all of
 * which spin outside APEX and check the clock against the partition's windows. With the
 * argument `escape-group` the child first leaves the partition's process group (setsid: only
 * possible without the seccomp filter, which refuses it), so that a stop sent to the group
 * misses it. */
#define _GNU_SOURCE
#include "window_check.h"
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static struct window_check wc;

static void *thread_spin(void *arg)
{
    wc_spin(&wc, (const char *)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL); /* SIGSTOP and SIGKILL cannot be blocked */
    wc_parse(&wc, argc, argv);
    wc_yield = 1;
    /* The first APEX call starts the runtime (and makes this thread real-time): do it before
     * forking and spawning, so that every spinner runs at the same priority. */
    RETURN_CODE_TYPE rc;
    SYSTEM_TIME_TYPE t;
    GET_TIME(&t, &rc);
    int escape = 0;
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "escape-group") == 0) {
            escape = 1;
        }
    }
    pid_t child = fork();
    if (child == 0) {
        if (escape) {
            if (setsid() < 0) {
                perror("setsid");
                return 1;
            }
            printf("HOSTILE left the process group\n");
            fflush(stdout);
        }
        wc_spin(&wc, "forked-child");
    }
    static const char *roles[] = {"thread-1", "thread-2", "thread-3"};
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        pthread_create(&t, NULL, thread_spin, (void *)roles[i]);
    }
    wc_spin(&wc, "main");
    return 0;
}
