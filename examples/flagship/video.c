/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* video: the payload partition of the flagship example (LEVEL_E, core 1).
 *
 * encoder (periodic 40 ms, 25 frames/s) renders a synthetic 640x480 camera frame, encodes it
 * against the previous one (8x8 block DCT of the difference, quantised; the coded size is
 * estimated from the non-zero coefficients) and prints a line every 50 frames. The camera
 * link "corrupts" frame 30 and every 100th frame after it: the encoder detects the bad
 * checksum and calls RAISE_APPLICATION_ERROR; the partition's error handler reports the
 * error, the frame is dropped and encoding goes on. The health monitor records each error
 * in the logbook, where the health partition reads it. Each frame's statistics go out as one
 * line of text on the VIDEO_TLM queuing port, which the module connects to a UDP
 * pseudo-partition: datagrams to 127.0.0.1:6530 (watch them with `nc -ul 127.0.0.1 6530`). */
#include "flagship.h"

#define W 640
#define H 480

static unsigned char frame[H][W], previous[H][W];
static double cosines[8][8];
static unsigned dropped, errors_handled;
static QUEUING_PORT_ID_TYPE tlm_port;
static unsigned tlm_sent, tlm_refused;

static void telemetry(unsigned n, unsigned coded, double ms)
{
    char line[64];
    RETURN_CODE_TYPE rc;
    int len = snprintf(line, sizeof line, "video frame %u coded %u B encode %.2f ms\n", n, coded,
                       ms);
    SEND_QUEUING_MESSAGE(tlm_port, (MESSAGE_ADDR_TYPE)line, len, 0, &rc);
    if (rc == NO_ERROR)
        tlm_sent++;
    else
        tlm_refused++;
}

static double cosine(double x) /* cos(x) for |x| <= 4 pi, without libm */
{
    const double pi = 3.14159265358979323846;
    while (x > pi)
        x -= 2 * pi;
    while (x < -pi)
        x += 2 * pi;
    double x2 = x * x, term = 1, sum = 1;
    for (int k = 1; k < 12; k++) {
        term *= -x2 / ((2 * k - 1) * (2 * k));
        sum += term;
    }
    return sum;
}

static void render(unsigned n)
{
    int bx = (n * 4) % (W - 40), by = 60 + (n * 2) % (H - 120);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int v = (x + y + n) & 0xff; /* drifting gradient: the background */
            if (x >= bx && x < bx + 40 && y >= by && y < by + 40)
                v = 250; /* a moving object */
            frame[y][x] = (unsigned char)v;
        }
}

/* Returns the estimated coded size in bytes. */
static unsigned encode(void)
{
    unsigned bits = 0;
    for (int by = 0; by < H; by += 8)
        for (int bx = 0; bx < W; bx += 8) {
            double d[8][8], tmp[8][8];
            for (int y = 0; y < 8; y++)
                for (int x = 0; x < 8; x++)
                    d[y][x] = (double)frame[by + y][bx + x] - previous[by + y][bx + x];
            for (int u = 0; u < 8; u++) /* rows */
                for (int y = 0; y < 8; y++) {
                    double s = 0;
                    for (int x = 0; x < 8; x++)
                        s += d[y][x] * cosines[u][x];
                    tmp[y][u] = s;
                }
            unsigned nonzero = 0;
            for (int v = 0; v < 8; v++) /* columns, then quantise */
                for (int u = 0; u < 8; u++) {
                    double s = 0;
                    for (int y = 0; y < 8; y++)
                        s += tmp[y][u] * cosines[v][y];
                    if (s / 4.0 / 16.0 >= 1.0 || s / 4.0 / 16.0 <= -1.0)
                        nonzero++;
                }
            bits += 2 + nonzero * 12; /* block header + (run, level) codes */
        }
    memcpy(previous, frame, sizeof frame);
    return bits / 8;
}

static void encoder(void)
{
    RETURN_CODE_TYPE rc;
    unsigned long long coded = 0;
    double worst_ms = 0, total_ms = 0;
    unsigned encoded = 0;
    for (unsigned n = 1;; n++) {
        SYSTEM_TIME_TYPE t0 = flagship_now();
        render(n);
        if (n % 100 == 30) {
            char msg[96];
            int len = snprintf(msg, sizeof msg, "frame %u: camera checksum mismatch, frame "
                               "dropped", n);
            dropped++;
            RAISE_APPLICATION_ERROR(APPLICATION_ERROR, (MESSAGE_ADDR_TYPE)msg,
                                    (ERROR_MESSAGE_SIZE_TYPE)len, &rc);
        } else {
            unsigned size = encode();
            coded += size;
            encoded++;
            double ms = (flagship_now() - t0) / 1e6;
            telemetry(n, size, ms);
            total_ms += ms;
            if (ms > worst_ms)
                worst_ms = ms;
        }
        if (n % 50 == 0) {
            printf("video: frame %u: %u frames encoded, %u B raw -> %llu B coded on average "
                   "(%.1f:1), encode %.1f ms average, %.1f ms max, %u dropped; %u telemetry "
                   "messages sent, %u refused\n",
                   n, encoded, W * H, encoded ? coded / encoded : 0,
                   coded ? (double)W * H * encoded / coded : 0.0,
                   encoded ? total_ms / encoded : 0.0, worst_ms, dropped, tlm_sent, tlm_refused);
            worst_ms = 0;
        }
        PERIODIC_WAIT(&rc);
    }
}

static void error_handler(void)
{
    RETURN_CODE_TYPE rc;
    ERROR_STATUS_TYPE es;
    for (;;) {
        GET_ERROR_STATUS(&es, &rc);
        if (rc != NO_ERROR)
            break;
        errors_handled++;
        printf("video: error handler: %s from process %d: %.*s (%u handled)\n",
               flagship_code(es.ERROR_CODE), (int)es.FAILED_PROCESS_ID, (int)es.LENGTH,
               (const char *)es.MESSAGE, errors_handled);
    }
    STOP_SELF();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    for (int u = 0; u < 8; u++)
        for (int x = 0; x < 8; x++)
            cosines[u][x] = cosine((2 * x + 1) * u * 3.14159265358979323846 / 16);
    CREATE_QUEUING_PORT(APEX_NAME("VIDEO_TLM"), 64, 32, SOURCE, FIFO, &tlm_port, &rc);
    if (rc != NO_ERROR)
        printf("video: CREATE_QUEUING_PORT(VIDEO_TLM): %d\n", (int)rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)error_handler, 64 * 1024, &rc);
    flagship_process("video", "encoder", encoder, 40000000, 40000000, SOFT, 10);
    printf("video: initialised at t=%.3f s: encoder at 25 frames/s, %dx%d\n",
           flagship_now() / 1e9, W, H);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
