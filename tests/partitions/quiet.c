/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The attacker's stand-in for the baseline runs of the isolation suite: an APEX partition
 * with no process, idle in its windows. */
#include <ARINC653.h>

int main(void)
{
    RETURN_CODE_TYPE rc;
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
