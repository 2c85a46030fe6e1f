/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* buffer/full_priority - see full.inc (PRIORITY: s2, then s1, s3). */
#define DISCIPLINE PRIORITY
#include "full.inc"
