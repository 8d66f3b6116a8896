/* A native ROS 2 image publisher on Eclipse Cyclone DDS: the benchmark's
   yardstick for the library's publishing. It sends what the library sends
   in section 8 (sensor_msgs/Image, BGRA8, one topic per camera, reliable,
   transient local, keep last 5), from a process of its own, so the
   readers' work and the machine's are the same and only the publisher
   differs.
     writer SECONDS HZ WIDTH HEIGHT DOMAIN TOPIC...
   It waits 2.5 s for the readers to match, then writes for SECONDS. */
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

static void sleep_until(double t) {
  double left = t - now();
  if (left <= 0) return;
  struct timespec d = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
  nanosleep(&d, NULL);
}

int main(int argc, char **argv) {
  if (argc < 7 || argc - 6 > MAX_TOPICS) {
    fprintf(stderr, "usage: %s SECONDS HZ WIDTH HEIGHT DOMAIN TOPIC... (at most %d)\n", argv[0], MAX_TOPICS);
    return 2;
  }
  double seconds = atof(argv[1]), hz = atof(argv[2]);
  unsigned width = (unsigned)atoi(argv[3]), height = (unsigned)atoi(argv[4]);
  dds_domainid_t domain = (dds_domainid_t)atoi(argv[5]);
  int n_topics = argc - 6;
  if (hz <= 0 || width == 0 || height == 0 || width > 8192 || height > 8192) {
    fprintf(stderr, "bad rate or size\n");
    return 2;
  }
  dds_entity_t participant = dds_create_participant(domain, NULL, NULL);
  if (participant < 0) { fprintf(stderr, "participant: %s\n", dds_strretcode(-participant)); return 1; }
  dds_qos_t *qos = dds_create_qos();
  dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
  dds_qset_durability(qos, DDS_DURABILITY_TRANSIENT_LOCAL);
  dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 5);
  dds_entity_t writers[MAX_TOPICS];
  for (int t = 0; t < n_topics; t++) {
    dds_entity_t topic = dds_create_topic(participant, &sensor_msgs_msg_dds__Image__desc, argv[6 + t], NULL, NULL);
    if (topic < 0) { fprintf(stderr, "topic: %s\n", dds_strretcode(-topic)); return 1; }
    writers[t] = dds_create_writer(participant, topic, qos, NULL);
    if (writers[t] < 0) { fprintf(stderr, "writer: %s\n", dds_strretcode(-writers[t])); return 1; }
  }
  dds_delete_qos(qos);
  size_t bytes = (size_t)width * height * 4;
  unsigned char *pixels = malloc(bytes);
  if (!pixels) { fprintf(stderr, "no memory for %zu bytes\n", bytes); return 1; }
  memset(pixels, 7, bytes);
  sensor_msgs_msg_dds__Image_ msg;
  memset(&msg, 0, sizeof msg);
  msg.header.frame_id = "bench";
  msg.height = height;
  msg.width = width;
  msg.encoding = "bgra8";
  msg.step = width * 4;
  msg.data._buffer = pixels;
  msg.data._length = msg.data._maximum = (uint32_t)bytes;
  sleep_until(now() + 2.5);
  double start = now();
  long frame = 0, refused = 0;
  while (now() - start < seconds) {
    frame++;
    msg.header.stamp.sec = (int32_t)(frame / hz);
    msg.header.stamp.nanosec = (uint32_t)((frame / hz - (long)(frame / hz)) * 1e9);
    for (int t = 0; t < n_topics; t++)
      refused += dds_write(writers[t], &msg) != DDS_RETCODE_OK;
    sleep_until(start + frame / hz);
  }
  printf("writer: %ld frames, %ld writes refused\n", frame, refused);
  free(pixels);
  dds_delete(participant);
  return 0;
}
