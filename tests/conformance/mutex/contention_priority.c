/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* mutex/contention_priority - see contention.inc (PRIORITY: w2, then w1, w3).
 * @module windows=0:90,0:90@1 duration=1000
 */
#define DISCIPLINE PRIORITY
#include "contention.inc"
