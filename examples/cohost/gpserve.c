/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* cohost example: the general-purpose partition's program, an ordinary Linux program (no
 * APEX). `gpserve PORT FILE SCRIPT` starts `/bin/sh -c SCRIPT` (the compressor loop) as a
 * child, then serves FILE over TCP on PORT: each connection receives the file's current
 * content and is closed. It prints one line per 20 connections served. If the shell ends,
 * gpserve ends with its status (the manager's health monitor then acts). Built with a plain
 * C compiler: `cc -O2 gpserve.c -o gpserve`. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t shell;

/* Reaps every ended child (gpserve is process 1 of the partition's PID namespace, so the
 * orphans of the shell's jobs come to it); ends with the shell's status. */
static void on_child(int sig)
{
    (void)sig;
    int status;
    pid_t p;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
        if (p == shell) {
            _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        }
    }
}

static int serve_one(int client, const char *file)
{
    int fd = open(file, O_RDONLY);
    if (fd < 0) {
        return 0; /* nothing compressed yet: an empty answer */
    }
    char buf[65536];
    int total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) {
            break;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(client, buf + off, (size_t)(n - off));
            if (w <= 0) {
                close(fd);
                return total;
            }
            off += w;
            total += (int)w;
        }
    }
    close(fd);
    return total;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gpserve PORT FILE SCRIPT\n");
        return 2;
    }
    int port = atoi(argv[1]);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, on_child);
    shell = fork();
    if (shell < 0) {
        perror("gpserve: fork");
        return 1;
    }
    if (shell == 0) {
        execl("/bin/sh", "sh", "-c", argv[3], (char *)NULL);
        perror("gpserve: exec /bin/sh");
        _exit(127);
    }
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        perror("gpserve: socket");
        return 1;
    }
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 16) != 0) {
        perror("gpserve: bind/listen");
        return 1;
    }
    printf("gpserve: serving %s on port %d\n", argv[2], port);
    fflush(stdout);
    for (unsigned long served = 1;; served++) {
        int c = accept(s, NULL, NULL);
        if (c < 0) {
            if (errno == EINTR) {
                served--;
                continue;
            }
            perror("gpserve: accept");
            return 1;
        }
        int bytes = serve_one(c, argv[2]);
        close(c);
        if (served % 20 == 1) {
            printf("gpserve: connection %lu served %d bytes\n", served, bytes);
            fflush(stdout);
        }
    }
}
