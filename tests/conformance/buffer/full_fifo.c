/* buffer/full_fifo - see full.inc (FIFO: s1, s2, s3). */
#define DISCIPLINE FIFO
#include "full.inc"
