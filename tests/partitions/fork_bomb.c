/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile: every process forks as fast as it can, for ever. Reports the first refusal. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    int reported = 0;
    long made = 0;
    for (;;) {
        pid_t p = fork();
        if (p == 0) {
            reported = 1; /* only the original reports */
            continue;
        }
        if (p > 0) {
            made++;
        } else if (!reported) {
            printf("FORKBOMB refused after %ld forks: %s\n", made, strerror(errno));
            fflush(stdout);
            reported = 1;
        }
    }
}
