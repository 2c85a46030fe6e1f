/* Hostile: raises itself to real-time priority 99 (above the manager's scheduler threads)
 * and spins. Refused on every host: the partition holds no capability and RLIMIT_RTPRIO is at
 * most the runtime's timer priority (0 where the host cannot set it). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>

int main(void)
{
    struct sched_param sp = {.sched_priority = 99};
    int r = sched_setparam(0, &sp);
    printf("RTSPIN sched_setparam(99) = %d errno %d\n", r, r ? errno : 0);
    fflush(stdout);
    for (volatile unsigned long n = 0;; n++) {
    }
}
