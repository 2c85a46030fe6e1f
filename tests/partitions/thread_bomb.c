/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile: creates threads until refused, then keeps trying; every thread spins, yielding
 * the core to the other threads of its priority so that the creator keeps creating (a
 * creation waits for the manager's answer, crates/manager/src/creation.rs: a spinner that
 * never yields would take the core from it for good, and the bomb would stop by itself). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static void *spin(void *arg)
{
    (void)arg;
    for (volatile unsigned long n = 0;; n++) {
        if (n % 1024 == 0)
            sched_yield();
    }
    return NULL;
}

int main(void)
{
    long made = 0;
    int reported = 0;
    for (;;) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, 65536);
        int e = pthread_create(&t, &a, spin, NULL);
        pthread_attr_destroy(&a);
        if (e == 0) {
            made++;
        } else if (!reported) {
            printf("THREADBOMB refused after %ld threads: %s\n", made, strerror(e));
            fflush(stdout);
            reported = 1;
        }
    }
}
