/* mutex/contention_fifo - see contention.inc (FIFO: w1, w2, w3). */
#define DISCIPLINE FIFO
#include "contention.inc"
