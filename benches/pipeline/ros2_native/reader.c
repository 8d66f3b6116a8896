/* A native ROS 2 (DDS) reader on Eclipse Cyclone DDS: counts the images
   (or point clouds) each topic delivers, by distinct stamps, and the bytes,
   and prints one line per topic:
     TOPIC QOS: SAMPLES samples, FRAMES frames in SPAN s: RATE frames/s, MB MB/s
   reader image|cloud reliable|best_effort SECONDS DOMAIN TOPIC... */
#include "ros_types.h"
#include <dds/dds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TOPICS 16

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

struct counted {
  const char *name;
  dds_entity_t reader;
  long samples, frames;
  double bytes, first, last;
  long long last_stamp;
};

int main(int argc, char **argv) {
  if (argc < 6 || argc - 5 > MAX_TOPICS) {
    fprintf(stderr, "usage: %s image|cloud reliable|best_effort SECONDS DOMAIN TOPIC... (at most %d)\n",
            argv[0], MAX_TOPICS);
    return 2;
  }
  int cloud = strcmp(argv[1], "cloud") == 0;
  int reliable = strcmp(argv[2], "reliable") == 0;
  double seconds = atof(argv[3]);
  dds_domainid_t domain = (dds_domainid_t)atoi(argv[4]);
  int n_topics = argc - 5;
  dds_entity_t participant = dds_create_participant(domain, NULL, NULL);
  if (participant < 0) { fprintf(stderr, "participant: %s\n", dds_strretcode(-participant)); return 1; }
  const dds_topic_descriptor_t *desc = cloud ? &sensor_msgs_msg_dds__PointCloud2__desc : &sensor_msgs_msg_dds__Image__desc;
  dds_qos_t *qos = dds_create_qos();
  dds_qset_reliability(qos, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(1));
  dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 5);
  dds_entity_t ws = dds_create_waitset(participant);
  struct counted topics[MAX_TOPICS];
  memset(topics, 0, sizeof topics);
  for (int t = 0; t < n_topics; t++) {
    topics[t].name = argv[5 + t];
    topics[t].last_stamp = -1;
    dds_entity_t topic = dds_create_topic(participant, desc, topics[t].name, NULL, NULL);
    if (topic < 0) { fprintf(stderr, "topic: %s\n", dds_strretcode(-topic)); return 1; }
    topics[t].reader = dds_create_reader(participant, topic, qos, NULL);
    if (topics[t].reader < 0) { fprintf(stderr, "reader: %s\n", dds_strretcode(-topics[t].reader)); return 1; }
    dds_waitset_attach(ws, dds_create_readcondition(topics[t].reader, DDS_ANY_STATE), t);
  }
  dds_delete_qos(qos);
  double start = now();
  while (now() - start < seconds) {
    dds_waitset_wait(ws, NULL, 0, DDS_MSECS(100));
    for (int t = 0; t < n_topics; t++) {
      struct counted *c = &topics[t];
      void *buf[16] = {0};
      dds_sample_info_t info[16];
      int n = dds_take(c->reader, buf, info, 16, 16);
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
        c->samples++;
        c->bytes += (double)len;
        if (stamp != c->last_stamp) { c->frames++; c->last_stamp = stamp; }
        if (!c->first) c->first = now();
        c->last = now();
      }
      if (n > 0) dds_return_loan(c->reader, buf, n);
    }
  }
  for (int t = 0; t < n_topics; t++) {
    struct counted *c = &topics[t];
    double span = c->last > c->first ? c->last - c->first : 0;
    printf("%s %s: %ld samples, %ld frames in %.2f s: %.2f frames/s, %.1f MB/s\n", c->name,
           reliable ? "reliable" : "best_effort", c->samples, c->frames, span,
           span > 0 ? (c->frames - 1) / span : 0.0, span > 0 ? c->bytes / span / 1e6 : 0.0);
  }
  dds_delete(participant);
  return 0;
}
