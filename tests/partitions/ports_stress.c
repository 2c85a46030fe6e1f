/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Port stress partition (crates/cli/tests/ports_stress.rs).
 *
 *   ports_stress writer N   sends N messages on each of the queuing ports Q1 and Q2 (one
 *                           process per port, blocking sends) and writes every Q1 message
 *                           to the sampling port S as well;
 *   ports_stress reader N   receives them (blocking receives), checks sequence numbers and
 *                           checksums, and reads S after every Q1 message (its sequence
 *                           numbers must never go back).
 *
 * Message: u32 sequence number, u32 length, payload derived from the sequence number,
 * u32 checksum (FNV-1a of everything before); lengths vary from 16 bytes to the port size.
 * The reader prints `READER DONE q1=.. q2=.. sampling=.. errors=..` when both streams are
 * complete, the writer `WRITER DONE ...`. Errors are printed as `ERROR ...` lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <ARINC653.h>
#include "process.h"

#define Q1_SIZE 512
#define Q2_SIZE 64
#define S_SIZE 256

static long n_msgs;
static QUEUING_PORT_ID_TYPE q1, q2;
static SAMPLING_PORT_ID_TYPE s;
static volatile long done_q1, done_q2, sampling_reads, errors;

static uint32_t fnv(const uint8_t *b, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    return h;
}

static size_t length_of(uint32_t seq, size_t max)
{
    return 16 + (size_t)((seq * 2654435761u) % (uint32_t)(max - 15));
}

static size_t build(uint32_t seq, size_t max, uint8_t *m)
{
    size_t len = length_of(seq, max);
    uint32_t x = seq * 2246822519u + 1;
    memcpy(m, &seq, 4);
    memcpy(m + 4, &len, 4);
    for (size_t i = 8; i < len - 4; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        m[i] = (uint8_t)x;
    }
    uint32_t sum = fnv(m, len - 4);
    memcpy(m + len - 4, &sum, 4);
    return len;
}

/* Returns the sequence number of a well-formed message of length len, or 0. */
static uint32_t check(const uint8_t *m, MESSAGE_SIZE_TYPE len)
{
    uint32_t seq, l, sum;
    if (len < 16)
        return 0;
    memcpy(&seq, m, 4);
    memcpy(&l, m + 4, 4);
    memcpy(&sum, m + len - 4, 4);
    if (l != (uint32_t)len || sum != fnv(m, (size_t)len - 4))
        return 0;
    return seq;
}

static void error(const char *what, long a, long b)
{
    errors++;
    if (errors < 20)
        printf("ERROR %s %ld %ld\n", what, a, b);
}

static void send_loop(QUEUING_PORT_ID_TYPE q, size_t max, int with_sampling)
{
    static uint8_t bufs[2][Q1_SIZE];
    uint8_t *m = bufs[with_sampling];
    RETURN_CODE_TYPE rc;
    for (uint32_t seq = 1; seq <= (uint32_t)n_msgs; seq++) {
        size_t len = build(seq, max, m);
        SEND_QUEUING_MESSAGE(q, m, (MESSAGE_SIZE_TYPE)len, INFINITE_TIME_VALUE, &rc);
        if (rc != NO_ERROR)
            error("send", seq, rc);
        if (with_sampling) {
            size_t sl = build(seq, S_SIZE, m);
            WRITE_SAMPLING_MESSAGE(s, m, (MESSAGE_SIZE_TYPE)sl, &rc);
            if (rc != NO_ERROR)
                error("write", seq, rc);
        }
    }
    if (with_sampling)
        done_q1 = 1;
    else
        done_q2 = 1;
    if (done_q1 && done_q2)
        printf("WRITER DONE sent=%ld errors=%ld\n", 2 * n_msgs, (long)errors);
    fflush(stdout);
}

static void recv_loop(QUEUING_PORT_ID_TYPE q, size_t max, int with_sampling)
{
    static uint8_t bufs[2][Q1_SIZE], sbuf[S_SIZE];
    uint8_t *m = bufs[with_sampling];
    RETURN_CODE_TYPE rc;
    MESSAGE_SIZE_TYPE len;
    uint32_t last_sampled = 0;
    for (uint32_t expect = 1; expect <= (uint32_t)n_msgs; expect++) {
        RECEIVE_QUEUING_MESSAGE(q, INFINITE_TIME_VALUE, m, &len, &rc);
        if (rc != NO_ERROR) {
            error("receive", expect, rc);
            continue;
        }
        uint32_t seq = check(m, len);
        if (seq != expect)
            error(seq ? "sequence" : "checksum", expect, seq);
        if ((size_t)len > max)
            error("length", expect, len);
        if (with_sampling) {
            VALIDITY_TYPE v;
            READ_SAMPLING_MESSAGE(s, sbuf, &len, &v, &rc);
            if (rc == NO_ERROR) {
                uint32_t sseq = check(sbuf, len);
                if (sseq == 0)
                    error("sampling-checksum", expect, 0);
                else if (sseq < last_sampled)
                    error("sampling-backwards", sseq, last_sampled);
                else
                    last_sampled = sseq;
                sampling_reads++;
            } else if (rc != NO_ACTION) {
                error("sampling-read", expect, rc);
            }
        }
    }
    if (with_sampling)
        done_q1 = n_msgs;
    else
        done_q2 = n_msgs;
    if (done_q1 && done_q2)
        printf("READER DONE q1=%ld q2=%ld sampling=%ld errors=%ld\n", (long)done_q1,
               (long)done_q2, (long)sampling_reads, (long)errors);
    fflush(stdout);
}

static int writer;
static void p1(void) { (writer ? send_loop : recv_loop)(q1, Q1_SIZE, 1); STOP_SELF(); }
static void p2(void) { (writer ? send_loop : recv_loop)(q2, Q2_SIZE, 0); STOP_SELF(); }

int main(int argc, char **argv)
{
    RETURN_CODE_TYPE rc;
    if (argc < 3) {
        printf("usage: ports_stress writer|reader N\n");
        return 2;
    }
    writer = strcmp(argv[1], "writer") == 0;
    n_msgs = atol(argv[2]);
    PORT_DIRECTION_TYPE d = writer ? SOURCE : DESTINATION;
    CREATE_QUEUING_PORT(nm(writer ? "Q1_OUT" : "Q1_IN"), Q1_SIZE, 64, d, FIFO, &q1, &rc);
    if (rc != NO_ERROR)
        printf("ERROR create Q1 %d\n", (int)rc);
    CREATE_QUEUING_PORT(nm(writer ? "Q2_OUT" : "Q2_IN"), Q2_SIZE, 256, d, PRIORITY, &q2, &rc);
    if (rc != NO_ERROR)
        printf("ERROR create Q2 %d\n", (int)rc);
    CREATE_SAMPLING_PORT(nm(writer ? "S_OUT" : "S_IN"), S_SIZE, d, writer ? 0 : 1000000000LL, &s,
                         &rc);
    if (rc != NO_ERROR)
        printf("ERROR create S %d\n", (int)rc);
    printf("%s ready\n", argv[1]);
    fflush(stdout);
    start_process("p1", p1, 10, INFINITE_TIME_VALUE);
    start_process("p2", p2, 10, INFINITE_TIME_VALUE);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
