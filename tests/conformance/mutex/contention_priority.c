/* mutex/contention_priority - see contention.inc (PRIORITY: w2, then w1, w3). */
#define DISCIPLINE PRIORITY
#include "contention.inc"
