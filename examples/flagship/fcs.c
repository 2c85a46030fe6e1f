/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fcs: the flight-control partition of the flagship example (LEVEL_A).
 *
 * A simulated helicopter's attitude (roll, pitch, yaw) is held at a set-point by a 50 Hz
 * loop of three APEX processes that communicate through intra-partition objects:
 *   sensors   (periodic 20 ms, HARD deadline 10 ms) samples the plant under the PLANT
 *             semaphore, adds sensor noise and displays the IMU blackboard;
 *   control   (periodic 20 ms, HARD deadline 10 ms) reads the blackboard, computes the PD
 *             control law and sends the actuator command into the ACT_CMD buffer;
 *   actuators (aperiodic, waits on the buffer) applies the command: it integrates the
 *             plant one step under the semaphore.
 * publisher (periodic 40 ms, 25 Hz) writes the attitude on the ATTITUDE sampling port and
 * prints a status line every second; guidance (aperiodic) receives heading set-points from
 * nav on the NAV_CMD queuing port. An error handler reports deadline misses. */
#include "flagship.h"

#define DT 0.02 /* control period, s */

typedef struct {
    double ang[3];  /* roll, pitch, yaw, degrees */
    double rate[3]; /* degrees per second */
    SYSTEM_TIME_TYPE t;
    unsigned n;
} imu_msg;

typedef struct {
    double torque[3];
    SYSTEM_TIME_TYPE sensed; /* time of the IMU sample it answers */
    unsigned n;
} cmd_msg;

static BLACKBOARD_ID_TYPE imu_bb;
static BUFFER_ID_TYPE cmd_buf;
static SEMAPHORE_ID_TYPE plant_sem;
static SAMPLING_PORT_ID_TYPE att_port;
static QUEUING_PORT_ID_TYPE nav_port;

/* The simulated airframe: only touched under the PLANT semaphore. */
static double ang[3] = {4.0, -3.0, 0.0}, rate[3];
static double gust[3];
static double heading_cmd; /* written by guidance, read by control */

static unsigned cycles, commands, waypoints, misses, publications;
static double worst_latency_ms;
static unsigned long long noise_state = 0x9e3779b97f4a7c15ULL;

static double noise(void) /* uniform in [-1, 1] */
{
    noise_state = noise_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(noise_state >> 11) / (double)(1ULL << 52) - 1.0;
}

static double wrap180(double d)
{
    while (d > 180.0)
        d -= 360.0;
    while (d <= -180.0)
        d += 360.0;
    return d;
}

static void plant_lock(void)
{
    RETURN_CODE_TYPE rc;
    WAIT_SEMAPHORE(plant_sem, INFINITE_TIME_VALUE, &rc);
}

static void plant_unlock(void)
{
    RETURN_CODE_TYPE rc;
    SIGNAL_SEMAPHORE(plant_sem, &rc);
}

static void sensors(void)
{
    RETURN_CODE_TYPE rc;
    for (unsigned n = 1;; n++) {
        imu_msg m;
        plant_lock();
        for (int i = 0; i < 3; i++) {
            m.ang[i] = ang[i] + 0.05 * noise();
            m.rate[i] = rate[i] + 0.2 * noise();
        }
        plant_unlock();
        m.t = flagship_now();
        m.n = n;
        DISPLAY_BLACKBOARD(imu_bb, (MESSAGE_ADDR_TYPE)&m, sizeof m, &rc);
        PERIODIC_WAIT(&rc);
    }
}

static void control(void)
{
    RETURN_CODE_TYPE rc;
    for (;;) {
        imu_msg m;
        MESSAGE_SIZE_TYPE len;
        READ_BLACKBOARD(imu_bb, 0, (MESSAGE_ADDR_TYPE)&m, &len, &rc);
        if (rc == NO_ERROR) {
            cmd_msg c;
            double sp[3] = {0.0, 0.0, heading_cmd};
            for (int i = 0; i < 3; i++) {
                double err = i == 2 ? wrap180(sp[i] - m.ang[i]) : sp[i] - m.ang[i];
                double t = 20.0 * err - 8.0 * m.rate[i]; /* PD law */
                c.torque[i] = t > 400.0 ? 400.0 : t < -400.0 ? -400.0 : t;
            }
            c.sensed = m.t;
            c.n = m.n;
            SEND_BUFFER(cmd_buf, (MESSAGE_ADDR_TYPE)&c, sizeof c, 0, &rc);
            cycles++;
        }
        PERIODIC_WAIT(&rc);
    }
}

static void actuators(void)
{
    RETURN_CODE_TYPE rc;
    for (;;) {
        cmd_msg c;
        MESSAGE_SIZE_TYPE len;
        RECEIVE_BUFFER(cmd_buf, INFINITE_TIME_VALUE, (MESSAGE_ADDR_TYPE)&c, &len, &rc);
        if (rc != NO_ERROR)
            continue;
        plant_lock();
        if (c.n % 25 == 1) /* the wind changes twice a second */
            for (int i = 0; i < 3; i++)
                gust[i] = 30.0 * noise();
        for (int i = 0; i < 3; i++) {
            rate[i] += (c.torque[i] + gust[i] - 0.5 * rate[i]) * DT;
            ang[i] += rate[i] * DT;
        }
        ang[2] = ang[2] < 0 ? ang[2] + 360.0 : ang[2] >= 360.0 ? ang[2] - 360.0 : ang[2];
        plant_unlock();
        double lat = (flagship_now() - c.sensed) / 1e6;
        if (lat > worst_latency_ms)
            worst_latency_ms = lat;
        commands++;
    }
}

static void publisher(void)
{
    RETURN_CODE_TYPE rc;
    for (;;) {
        attitude_msg a;
        plant_lock();
        a.roll = (float)ang[0];
        a.pitch = (float)ang[1];
        a.yaw = (float)ang[2];
        plant_unlock();
        a.heading_cmd = (float)heading_cmd;
        a.time_ns = flagship_now();
        a.seq = ++publications;
        WRITE_SAMPLING_MESSAGE(att_port, (MESSAGE_ADDR_TYPE)&a, sizeof a, &rc);
        if (a.seq % 25 == 0)
            printf("fcs: t=%5.2f s  roll %+5.2f  pitch %+5.2f  yaw %6.2f (cmd %5.1f)  "
                   "%u control cycles, %u attitude msgs, %u waypoints, latency max %.2f ms, "
                   "%u deadline misses\n",
                   a.time_ns / 1e9, a.roll, a.pitch, a.yaw, a.heading_cmd, cycles, a.seq,
                   waypoints, worst_latency_ms, misses);
        PERIODIC_WAIT(&rc);
    }
}

static void guidance(void)
{
    RETURN_CODE_TYPE rc;
    for (;;) {
        nav_cmd_msg m;
        MESSAGE_SIZE_TYPE len;
        RECEIVE_QUEUING_MESSAGE(nav_port, INFINITE_TIME_VALUE, (MESSAGE_ADDR_TYPE)&m, &len,
                                &rc);
        if (rc != NO_ERROR || len != sizeof m) {
            printf("fcs: NAV_CMD receive: rc %d, %d bytes\n", (int)rc, (int)len);
            continue;
        }
        heading_cmd = m.heading;
        waypoints++;
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
        if (es.ERROR_CODE == DEADLINE_MISSED)
            misses++;
        printf("fcs: error handler: %s in process %d\n", flagship_code(es.ERROR_CODE),
               (int)es.FAILED_PROCESS_ID);
    }
    STOP_SELF();
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    PARTITION_STATUS_TYPE st;
    GET_PARTITION_STATUS(&st, &rc);
    CREATE_BLACKBOARD(APEX_NAME("IMU"), sizeof(imu_msg), &imu_bb, &rc);
    CREATE_BUFFER(APEX_NAME("ACT_CMD"), sizeof(cmd_msg), 4, PRIORITY, &cmd_buf, &rc);
    CREATE_SEMAPHORE(APEX_NAME("PLANT"), 1, 1, PRIORITY, &plant_sem, &rc);
    CREATE_SAMPLING_PORT(APEX_NAME("ATTITUDE"), sizeof(attitude_msg), SOURCE, 100000000, &att_port, &rc);
    if (rc != NO_ERROR)
        printf("fcs: CREATE_SAMPLING_PORT(ATTITUDE): %d\n", (int)rc);
    CREATE_QUEUING_PORT(APEX_NAME("NAV_CMD"), sizeof(nav_cmd_msg), 8, DESTINATION, FIFO, &nav_port, &rc);
    if (rc != NO_ERROR)
        printf("fcs: CREATE_QUEUING_PORT(NAV_CMD): %d\n", (int)rc);
    CREATE_ERROR_HANDLER((SYSTEM_ADDRESS_TYPE)error_handler, 64 * 1024, &rc);
    flagship_process("fcs", "sensors", sensors, 20000000, 10000000, HARD, 40);
    flagship_process("fcs", "actuators", actuators, INFINITE_TIME_VALUE, INFINITE_TIME_VALUE,
                     SOFT, 35);
    flagship_process("fcs", "control", control, 20000000, 10000000, HARD, 30);
    flagship_process("fcs", "guidance", guidance, INFINITE_TIME_VALUE, INFINITE_TIME_VALUE, SOFT,
                     25);
    flagship_process("fcs", "publisher", publisher, 40000000, 20000000, HARD, 20);
    printf("fcs: initialised at t=%.3f s (partition period %.0f ms): 5 processes, blackboard "
           "IMU, buffer ACT_CMD, semaphore PLANT, ports ATTITUDE and NAV_CMD\n",
           flagship_now() / 1e9, st.PERIOD / 1e6);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
