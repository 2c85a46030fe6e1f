/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Stack budget: creates three processes whose stacks are 96 KiB, 96 KiB and 64 KiB and prints
 * the return code of each CREATE_PROCESS as "STACK <name> <code>". Under a partition whose
 * configured stack total (partita:Resources stackBytes) is 160 KiB the second one does not
 * fit (INVALID_CONFIG) and the third one does; under the runtime's default total all fit.
 * Then it enters NORMAL mode with none of them started.
 * Arguments: NAME (the window-check arguments of the test modules follow and are ignored). */
#include "process.h"

static void idle(void)
{
    RETURN_CODE_TYPE rc;
    for (;;) {
        TIMED_WAIT(1000000000, &rc);
    }
}

static const char *code(RETURN_CODE_TYPE rc)
{
    switch (rc) {
    case NO_ERROR:
        return "NO_ERROR";
    case INVALID_CONFIG:
        return "INVALID_CONFIG";
    default:
        return "OTHER";
    }
}

static void create(const char *name, STACK_SIZE_TYPE stack)
{
    PROCESS_ATTRIBUTE_TYPE attr = process_attrs(name, idle, 10, INFINITE_TIME_VALUE);
    PROCESS_ID_TYPE pid;
    RETURN_CODE_TYPE rc;
    attr.STACK_SIZE = stack;
    CREATE_PROCESS(&attr, &pid, &rc);
    printf("STACK %s %s (%d)\n", name, code(rc), (int)rc);
    fflush(stdout);
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    create("first", 96 * 1024);
    create("second", 96 * 1024);
    create("third", 64 * 1024);
    SET_PARTITION_MODE(NORMAL, &rc);
    printf("SET_PARTITION_MODE returned %d\n", (int)rc);
    return 1;
}
