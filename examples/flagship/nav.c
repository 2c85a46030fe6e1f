/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* nav: the navigation/display partition of the flagship example (LEVEL_C).
 *
 * display (periodic 40 ms) reads fcs's attitude on the ATTITUDE sampling port, checks its
 * validity (its age against the port's 100 ms refresh period) and prints it once a second
 * with the counts of valid, stale and missing reads; route (periodic 2 s) sends the next
 * waypoint's heading to fcs on the NAV_CMD queuing port. */
#include "flagship.h"

static SAMPLING_PORT_ID_TYPE att_port;
static QUEUING_PORT_ID_TYPE cmd_port;
static unsigned sent, refused;

static void display(void)
{
    RETURN_CODE_TYPE rc;
    unsigned valid = 0, stale = 0, empty = 0;
    double worst_age = 0;
    for (unsigned n = 1;; n++) {
        attitude_msg a;
        MESSAGE_SIZE_TYPE len = 0;
        VALIDITY_TYPE v = INVALID;
        READ_SAMPLING_MESSAGE(att_port, (MESSAGE_ADDR_TYPE)&a, &len, &v, &rc);
        double age = -1;
        if (rc == NO_ERROR && len == sizeof a) {
            age = (flagship_now() - a.time_ns) / 1e6;
            if (age > worst_age)
                worst_age = age;
            if (v == VALID)
                valid++;
            else
                stale++;
        } else
            empty++;
        if (n % 25 == 0) {
            if (age >= 0)
                printf("nav: attitude #%u  roll %+5.2f  pitch %+5.2f  yaw %6.2f  age %4.1f ms "
                       "%s; last second %u valid, %u stale, %u empty (worst age %.1f ms)\n",
                       a.seq, a.roll, a.pitch, a.yaw, age, v == VALID ? "VALID" : "INVALID",
                       valid, stale, empty, worst_age);
            else
                printf("nav: no attitude yet (rc %d); last second %u valid, %u stale, %u "
                       "empty\n",
                       (int)rc, valid, stale, empty);
            valid = stale = empty = 0;
            worst_age = 0;
        }
        PERIODIC_WAIT(&rc);
    }
}

static void route(void)
{
    static const float headings[] = {30, 90, 45, 180, 270, 0};
    RETURN_CODE_TYPE rc;
    for (unsigned n = 0;; n++) {
        nav_cmd_msg m = {n + 1, headings[n % 6]};
        SEND_QUEUING_MESSAGE(cmd_port, (MESSAGE_ADDR_TYPE)&m, sizeof m, 0, &rc);
        if (rc == NO_ERROR)
            sent++;
        else
            refused++;
        printf("nav: waypoint %u: heading %.0f deg sent on NAV_CMD (rc %d; %u sent, %u "
               "refused)\n",
               m.waypoint, m.heading, (int)rc, sent, refused);
        PERIODIC_WAIT(&rc);
    }
}

int main(void)
{
    RETURN_CODE_TYPE rc;
    CREATE_SAMPLING_PORT(APEX_NAME("ATTITUDE"), sizeof(attitude_msg), DESTINATION, 100000000, &att_port,
                         &rc);
    if (rc != NO_ERROR)
        printf("nav: CREATE_SAMPLING_PORT(ATTITUDE): %d\n", (int)rc);
    CREATE_QUEUING_PORT(APEX_NAME("NAV_CMD"), sizeof(nav_cmd_msg), 8, SOURCE, FIFO, &cmd_port, &rc);
    if (rc != NO_ERROR)
        printf("nav: CREATE_QUEUING_PORT(NAV_CMD): %d\n", (int)rc);
    flagship_process("nav", "display", display, 40000000, 40000000, SOFT, 20);
    flagship_process("nav", "route", route, 2000000000, 1000000000, SOFT, 10);
    printf("nav: initialised at t=%.3f s: ports ATTITUDE (reader) and NAV_CMD (writer)\n",
           flagship_now() / 1e9);
    SET_PARTITION_MODE(NORMAL, &rc);
    return 1;
}
