/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Pseudo-partition test partition (crates/cli/tests/ports_pseudo.rs): forwards every
 * message of queuing port CMD_IN to ECHO_OUT prefixed with "echo:", every message of FIFO_IN
 * to FILE_OUT unchanged, and writes a sampling message "tick <n>" to SAMP_OUT each period. */
#include <stdio.h>
#include <string.h>
#include <ARINC653.h>
#include "process.h"

static QUEUING_PORT_ID_TYPE cmd_in, echo_out, fifo_in, file_out;
static SAMPLING_PORT_ID_TYPE samp_out;

static void echo(void)
{
    APEX_BYTE in[64], out[80];
    MESSAGE_SIZE_TYPE len;
    RETURN_CODE_TYPE rc;
    for (;;) {
        RECEIVE_QUEUING_MESSAGE(cmd_in, INFINITE_TIME_VALUE, in, &len, &rc);
        if (rc == INVALID_CONFIG) {
            printf("OVERFLOW indicated\n");
            fflush(stdout);
        } else if (rc != NO_ERROR) {
            printf("ERROR receive CMD_IN %d\n", (int)rc);
            continue;
        }
        memcpy(out, "echo:", 5);
        memcpy(out + 5, in, (size_t)len);
        SEND_QUEUING_MESSAGE(echo_out, out, len + 5, INFINITE_TIME_VALUE, &rc);
        if (rc != NO_ERROR)
            printf("ERROR send ECHO_OUT %d\n", (int)rc);
    }
}

static void copy(void)
{
    APEX_BYTE m[64];
    MESSAGE_SIZE_TYPE len;
    RETURN_CODE_TYPE rc;
    for (;;) {
        RECEIVE_QUEUING_MESSAGE(fifo_in, INFINITE_TIME_VALUE, m, &len, &rc);
        if (rc != NO_ERROR) {
            printf("ERROR receive FIFO_IN %d\n", (int)rc);
            continue;
        }
        printf("FIFO got %d bytes\n", (int)len);
        SEND_QUEUING_MESSAGE(file_out, m, len, INFINITE_TIME_VALUE, &rc);
        if (rc != NO_ERROR)
            printf("ERROR send FILE_OUT %d\n", (int)rc);
    }
}

static void tick(void)
{
    RETURN_CODE_TYPE rc;
    char m[32];
    for (int n = 1;; n++) {
        int len = snprintf(m, sizeof m, "tick %d", n);
        WRITE_SAMPLING_MESSAGE(samp_out, (MESSAGE_ADDR_TYPE)m, len, &rc);
        PERIODIC_WAIT(&rc);
    }
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE st;
    GET_PARTITION_STATUS(&st, &rc);
    CREATE_QUEUING_PORT(nm("CMD_IN"), 64, 16, DESTINATION, FIFO, &cmd_in, &rc);
    if (rc != NO_ERROR) printf("ERROR create CMD_IN %d\n", (int)rc);
    CREATE_QUEUING_PORT(nm("ECHO_OUT"), 80, 16, SOURCE, FIFO, &echo_out, &rc);
    if (rc != NO_ERROR) printf("ERROR create ECHO_OUT %d\n", (int)rc);
    CREATE_QUEUING_PORT(nm("FIFO_IN"), 64, 16, DESTINATION, FIFO, &fifo_in, &rc);
    if (rc != NO_ERROR) printf("ERROR create FIFO_IN %d\n", (int)rc);
    CREATE_QUEUING_PORT(nm("FILE_OUT"), 64, 16, SOURCE, FIFO, &file_out, &rc);
    if (rc != NO_ERROR) printf("ERROR create FILE_OUT %d\n", (int)rc);
    CREATE_SAMPLING_PORT(nm("SAMP_OUT"), 32, SOURCE, 0, &samp_out, &rc);
    if (rc != NO_ERROR) printf("ERROR create SAMP_OUT %d\n", (int)rc);
    start_process("echo", echo, 10, INFINITE_TIME_VALUE);
    start_process("copy", copy, 10, INFINITE_TIME_VALUE);
    start_process("tick", tick, 10, st.PERIOD);
    printf("echo ready\n");
    fflush(stdout);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
