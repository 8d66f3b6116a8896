/* A native ROS 2 (DDS) reader: counts the images (or point clouds) one
   topic delivers per second, by distinct stamps, and the bytes.
   reader TOPIC image|cloud reliable|best_effort SECONDS [DOMAIN] */
#include "ros_types.h"
#include <dds/dds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s TOPIC image|cloud reliable|best_effort SECONDS [DOMAIN]\n", argv[0]);
    return 2;
  }
  const char *topic_name = argv[1];
  int cloud = strcmp(argv[2], "cloud") == 0;
  int reliable = strcmp(argv[3], "reliable") == 0;
  double seconds = atof(argv[4]);
  dds_domainid_t domain = argc > 5 ? (dds_domainid_t)atoi(argv[5]) : 0;
  dds_entity_t participant = dds_create_participant(domain, NULL, NULL);
  if (participant < 0) { fprintf(stderr, "participant: %s\n", dds_strretcode(-participant)); return 1; }
  const dds_topic_descriptor_t *desc = cloud ? &sensor_msgs_msg_dds__PointCloud2__desc : &sensor_msgs_msg_dds__Image__desc;
  dds_entity_t topic = dds_create_topic(participant, desc, topic_name, NULL, NULL);
  if (topic < 0) { fprintf(stderr, "topic: %s\n", dds_strretcode(-topic)); return 1; }
  dds_qos_t *qos = dds_create_qos();
  dds_qset_reliability(qos, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(1));
  dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 5);
  dds_entity_t reader = dds_create_reader(participant, topic, qos, NULL);
  dds_delete_qos(qos);
  if (reader < 0) { fprintf(stderr, "reader: %s\n", dds_strretcode(-reader)); return 1; }
  dds_entity_t ws = dds_create_waitset(participant);
  dds_entity_t rc = dds_create_readcondition(reader, DDS_ANY_STATE);
  dds_waitset_attach(ws, rc, 0);
  double start = now(), first = 0, last = 0;
  long samples = 0, frames = 0; double bytes = 0;
  long long last_stamp = -1;
  while (now() - start < seconds) {
    dds_waitset_wait(ws, NULL, 0, DDS_MSECS(100));
    void *buf[16] = {0};
    dds_sample_info_t info[16];
    int n = dds_take(reader, buf, info, 16, 16);
    for (int i = 0; i < n; i++) {
      if (!info[i].valid_data) continue;
      const std_msgs_msg_dds__Header_ *h;
      size_t len;
      if (cloud) {
        const sensor_msgs_msg_dds__PointCloud2_ *m = buf[i];
        h = &m->header; len = m->data._length;
      } else {
        const sensor_msgs_msg_dds__Image_ *m = buf[i];
        h = &m->header; len = m->data._length;
      }
      long long stamp = (long long)h->stamp.sec * 1000000000LL + h->stamp.nanosec;
      samples++;
      bytes += (double)len;
      if (stamp != last_stamp) { frames++; last_stamp = stamp; }
      if (!first) first = now();
      last = now();
    }
    if (n > 0) dds_return_loan(reader, buf, n);
  }
  double span = last > first ? last - first : 0;
  printf("%s %s: %ld samples, %ld frames in %.2f s: %.2f frames/s, %.1f MB/s\n", topic_name,
         reliable ? "reliable" : "best_effort", samples, frames, span,
         span > 0 ? (frames - 1) / span : 0.0, span > 0 ? bytes / span / 1e6 : 0.0);
  dds_delete(participant);
  return 0;
}
