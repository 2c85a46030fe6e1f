/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A partition written the JetOS way: its entry function is main_process (the configuration's
 * EntryPoint), not main. With -DWITH_MAIN it also has a main, which must not run when
 * EntryPoint names main_process. Prints "ENTRY <function>", then "WORKER <partition id>" from
 * an APEX process it creates before entering NORMAL mode. */
#include "process.h"

static void worker(void)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE st;
    GET_PARTITION_STATUS(&st, &rc);
    printf("WORKER %d %d\n", (int)st.IDENTIFIER, (int)rc);
    fflush(stdout);
    STOP_SELF();
}

void main_process(void)
{
    RETURN_CODE_TYPE rc;
    printf("ENTRY main_process\n");
    fflush(stdout);
    PROCESS_ID_TYPE pid = mk("worker", worker, 10);
    START(pid, &rc);
    SET_PARTITION_MODE(NORMAL, &rc);
}

#ifdef WITH_MAIN
int main(void)
{
    printf("ENTRY main\n");
    fflush(stdout);
    main_process();
    return 0;
}
#endif
