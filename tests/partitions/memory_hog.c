/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Hostile: allocates and touches memory until it dies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    for (long mb = 1;; mb++) {
        char *p = malloc(1 << 20);
        if (!p) {
            printf("MEMHOG malloc failed after %ld MiB\n", mb);
            fflush(stdout);
            continue;
        }
        memset(p, 0x5a, 1 << 20);
        if (mb % 16 == 0) {
            printf("MEMHOG %ld MiB\n", mb);
            fflush(stdout);
        }
    }
}
