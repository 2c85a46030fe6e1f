/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* mutex/contention_fifo - see contention.inc (FIFO: w1, w2, w3).
 * @module windows=0:90,0:90@1 duration=1000
 */
#define DISCIPLINE FIFO
#include "contention.inc"
