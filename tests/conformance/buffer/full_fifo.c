/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* buffer/full_fifo - see full.inc (FIFO: s1, s2, s3). */
#define DISCIPLINE FIFO
#include "full.inc"
