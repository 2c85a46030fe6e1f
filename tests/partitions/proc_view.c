/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile, without APEX: reports what it sees of the host (the processes in /proc, its
 * identity and capabilities), then calls ptrace. With no SIGSYS handler of its own it dies
 * of the seccomp trap; the manager records ILLEGAL_REQUEST. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include "process.h"
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

int main(void)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (isdigit((unsigned char)e->d_name[0]))
            n++;
    if (d)
        closedir(d);
    printf("PROCVIEW processes=%d pid=%d uid=%d gid=%d\n", n, (int)getpid(), (int)getuid(),
           (int)getgid());
    FILE *f = must_fopen("/proc/self/status", "r");
    char line[256];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "CapBnd", 6) || !strncmp(line, "CapEff", 6) ||
            !strncmp(line, "NoNewPrivs", 10) || !strncmp(line, "Seccomp:", 8))
            printf("PROCVIEW %s", line);
    fclose(f);
    printf("PROCVIEW calling ptrace\n");
    fflush(stdout);
    long r = ptrace(PTRACE_TRACEME, 0, 0, 0);
    printf("PROCVIEW ptrace returned %ld\n", r);
    return 0;
}
