/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile: blocks every signal it can and spins outside APEX for ever (from its first
 * instruction on, at the real-time priority the partition starts with). */
#include <signal.h>
#include <stdio.h>

int main(void)
{
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    printf("SPIN blocked every signal\n");
    fflush(stdout);
    for (volatile unsigned long n = 0;; n++) {
    }
}
