/* A native ROS 2 (DDS) reader of the world-state topics, on Eclipse
   Cyclone DDS (types from ros_types.idl by idlc): it reads for SECONDS
   and prints, per topic, how many samples came and what the last one
   said, one line each, for a test to check:
     odometry N frame child x y z qx qy qz qw
     vehicle_status N speed
     vehicle_info N id type rolename wheels mass radius0 max_steer0
     objects N count id:class:sx:sy:sz ...
     map N bytes
     lights_status N count id:state ...
     lights_info N count id:cx:cy:cz:sx:sy:sz ...
     tf PARENT CHILD   (each distinct pair seen)
   topics_reader SECONDS DOMAIN NAME   (NAME: the hero's ros name) */
#include "ros_types.h"
#include <dds/dds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ODOM, STATUS, INFO, OBJECTS, MAP, LSTATUS, LINFO, TF, N_TOPICS };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define MAX_PAIRS 64
static char pairs[MAX_PAIRS][2][64];
static int n_pairs;

static void tf_pair(const char *parent, const char *child) {
  for (int i = 0; i < n_pairs; i++)
    if (!strcmp(pairs[i][0], parent) && !strcmp(pairs[i][1], child)) return;
  if (n_pairs == MAX_PAIRS) return;
  snprintf(pairs[n_pairs][0], 64, "%s", parent);
  snprintf(pairs[n_pairs][1], 64, "%s", child);
  n_pairs++;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s SECONDS DOMAIN NAME\n", argv[0]);
    return 2;
  }
  double seconds = atof(argv[1]);
  const char *name = argv[3];
  dds_entity_t dp = dds_create_participant((dds_domainid_t)atoi(argv[2]), NULL, NULL);
  if (dp < 0) { fprintf(stderr, "participant: %s\n", dds_strretcode(-dp)); return 1; }
  char odom[256], status[256], info[256];
  snprintf(odom, sizeof odom, "rt/carla/%s/odometry", name);
  snprintf(status, sizeof status, "rt/carla/%s/vehicle_status", name);
  snprintf(info, sizeof info, "rt/carla/%s/vehicle_info", name);
  struct { const char *topic; const dds_topic_descriptor_t *desc; int latched; } spec[N_TOPICS] = {
    [ODOM] = {odom, &nav_msgs_msg_dds__Odometry__desc, 0},
    [STATUS] = {status, &carla_msgs_msg_dds__CarlaEgoVehicleStatus__desc, 0},
    [INFO] = {info, &carla_msgs_msg_dds__CarlaEgoVehicleInfo__desc, 1},
    [OBJECTS] = {"rt/carla/objects", &derived_object_msgs_msg_dds__ObjectArray__desc, 0},
    [MAP] = {"rt/carla/map", &std_msgs_msg_dds__String__desc, 1},
    [LSTATUS] = {"rt/carla/traffic_lights/status", &carla_msgs_msg_dds__CarlaTrafficLightStatusList__desc, 1},
    [LINFO] = {"rt/carla/traffic_lights/info", &carla_msgs_msg_dds__CarlaTrafficLightInfoList__desc, 1},
    [TF] = {"rt/tf", &tf2_msgs_msg_dds__TFMessage__desc, 0},
  };
  dds_entity_t readers[N_TOPICS];
  long count[N_TOPICS] = {0};
  char last[N_TOPICS][4096] = {{0}};
  for (int t = 0; t < N_TOPICS; t++) {
    dds_entity_t topic = dds_create_topic(dp, spec[t].desc, spec[t].topic, NULL, NULL);
    if (topic < 0) { fprintf(stderr, "topic %s: %s\n", spec[t].topic, dds_strretcode(-topic)); return 1; }
    dds_qos_t *qos = dds_create_qos();
    dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
    dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 8);
    if (spec[t].latched) dds_qset_durability(qos, DDS_DURABILITY_TRANSIENT_LOCAL);
    readers[t] = dds_create_reader(dp, topic, qos, NULL);
    dds_delete_qos(qos);
    if (readers[t] < 0) { fprintf(stderr, "reader: %s\n", dds_strretcode(-readers[t])); return 1; }
  }
  double start = now();
  while (now() - start < seconds) {
    dds_sleepfor(DDS_MSECS(20));
    for (int t = 0; t < N_TOPICS; t++) {
      void *buf[8] = {0};
      dds_sample_info_t si[8];
      int n = dds_take(readers[t], buf, si, 8, 8);
      for (int i = 0; i < n; i++) {
        if (!si[i].valid_data) continue;
        count[t]++;
        char *out = last[t];
        size_t cap = sizeof last[t];
        int len = 0;
        switch (t) {
          case ODOM: {
            const nav_msgs_msg_dds__Odometry_ *m = buf[i];
            const geometry_msgs_msg_dds__Pose_ *p = &m->pose.pose;
            snprintf(out, cap, "%s %s %.3f %.3f %.3f %.4f %.4f %.4f %.4f", m->header.frame_id,
                     m->child_frame_id, p->position.x, p->position.y, p->position.z,
                     p->orientation.x, p->orientation.y, p->orientation.z, p->orientation.w);
            break;
          }
          case STATUS: {
            const carla_msgs_msg_dds__CarlaEgoVehicleStatus_ *m = buf[i];
            snprintf(out, cap, "%.3f", m->velocity);
            break;
          }
          case INFO: {
            const carla_msgs_msg_dds__CarlaEgoVehicleInfo_ *m = buf[i];
            const carla_msgs_msg_dds__CarlaEgoVehicleInfoWheel_ *w0 =
                m->wheels._length ? &m->wheels._buffer[0] : NULL;
            snprintf(out, cap, "%u %s %s %u %.1f %.3f %.3f", m->id, m->type, m->rolename,
                     m->wheels._length, m->mass, w0 ? w0->radius : 0.0f, w0 ? w0->max_steer_angle : 0.0f);
            break;
          }
          case OBJECTS: {
            const derived_object_msgs_msg_dds__ObjectArray_ *m = buf[i];
            len = snprintf(out, cap, "%u", m->objects._length);
            for (uint32_t k = 0; k < m->objects._length && len < (int)cap - 64; k++) {
              const derived_object_msgs_msg_dds__Object_ *o = &m->objects._buffer[k];
              const double *d = o->shape.dimensions._buffer;
              int three = o->shape.dimensions._length == 3;
              len += snprintf(out + len, cap - len, " %u:%u:%.2f:%.2f:%.2f", o->id, o->classification,
                              three ? d[0] : 0, three ? d[1] : 0, three ? d[2] : 0);
            }
            break;
          }
          case MAP: {
            const std_msgs_msg_dds__String_ *m = buf[i];
            snprintf(out, cap, "%zu", strlen(m->data));
            break;
          }
          case LSTATUS: {
            const carla_msgs_msg_dds__CarlaTrafficLightStatusList_ *m = buf[i];
            len = snprintf(out, cap, "%u", m->traffic_lights._length);
            for (uint32_t k = 0; k < m->traffic_lights._length && len < (int)cap - 32; k++)
              len += snprintf(out + len, cap - len, " %u:%u", m->traffic_lights._buffer[k].id,
                              m->traffic_lights._buffer[k].state);
            break;
          }
          case LINFO: {
            const carla_msgs_msg_dds__CarlaTrafficLightInfoList_ *m = buf[i];
            len = snprintf(out, cap, "%u", m->traffic_lights._length);
            for (uint32_t k = 0; k < m->traffic_lights._length && len < (int)cap - 96; k++) {
              const carla_msgs_msg_dds__CarlaTrafficLightInfo_ *l = &m->traffic_lights._buffer[k];
              const carla_msgs_msg_dds__CarlaBoundingBox_ *b = &l->trigger_volume;
              len += snprintf(out + len, cap - len, " %u:%.2f:%.2f:%.2f:%.2f:%.2f:%.2f", l->id,
                              b->center.x, b->center.y, b->center.z, b->size.x, b->size.y, b->size.z);
            }
            break;
          }
          case TF: {
            const tf2_msgs_msg_dds__TFMessage_ *m = buf[i];
            for (uint32_t k = 0; k < m->transforms._length; k++)
              tf_pair(m->transforms._buffer[k].header.frame_id, m->transforms._buffer[k].child_frame_id);
            break;
          }
        }
      }
      if (n > 0) dds_return_loan(readers[t], buf, n);
    }
  }
  const char *label[N_TOPICS] = {"odometry", "vehicle_status", "vehicle_info", "objects",
                                 "map", "lights_status", "lights_info", "tf_messages"};
  for (int t = 0; t < N_TOPICS; t++) printf("%s %ld %s\n", label[t], count[t], last[t]);
  for (int i = 0; i < n_pairs; i++) printf("tf %s %s\n", pairs[i][0], pairs[i][1]);
  dds_delete(dp);
  return 0;
}
