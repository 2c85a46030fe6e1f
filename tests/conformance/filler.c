/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* filler.c - the second partition of the scenarios that need window boundaries: it owns the
 * windows given as `filler=` in the scenario's @module line and does nothing. */
#include <ARINC653.h>

int main(void)
{
    RETURN_CODE_TYPE rc;
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
