/* A host that sends one large image, destroys its camera, frees the server
 * and exits at once: the subscriber must still receive the whole message
 * (carla_free_server lets subscribers finish messages already sent). */
#include <carla/carla_server.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIDE "2048"

static void fail(const char *what, int32_t code) {
  fprintf(stderr, "exit_race: %s failed with %d\n", what, (int)code);
  exit(1);
}

int main(void) {
  CarlaServerPtr s = carla_make_server();
  uint32_t port = 0, camera = 0, n = 0, size = 0;
  int32_t rc = carla_server_listen_streaming(s, 0, &port);
  if (rc != CARLA_SERVER_SUCCESS) fail("listen", rc);
  const char *keys[] = {"image_size_x", "image_size_y"};
  const char *values[] = {SIDE, SIDE};
  rc = carla_sensor_create(s, "sensor.camera.rgb", keys, values, 2, &camera, NULL, 0);
  if (rc != CARLA_SERVER_SUCCESS) fail("create", rc);
  rc = carla_sensor_set_synchronous(s, camera, 5000);
  if (rc != CARLA_SERVER_SUCCESS) fail("synchronous", rc);
  printf("PORT %u CAMERA %u\n", port, camera);
  fflush(stdout);
  for (int i = 0; i < 10000 && n == 0; ++i) {
    rc = carla_sensor_subscriber_count(s, camera, &n);
    if (rc != CARLA_SERVER_SUCCESS) fail("subscriber count", rc);
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  if (n == 0) fail("waiting for a subscriber", -100);
  CarlaImagePtr image = NULL;
  void *pixels = NULL;
  rc = carla_sensor_acquire_image(s, camera, &image, &pixels, &size);
  if (rc != CARLA_SERVER_SUCCESS) fail("acquire", rc);
  unsigned char *p = pixels;
  for (uint32_t i = 0; i < size; ++i) p[i] = (unsigned char)(i * 7u);
  struct carla_capture_context ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.frame = 1;
  rc = carla_sensor_commit_image(s, image, &ctx);
  if (rc != CARLA_SERVER_SUCCESS) fail("commit", rc);
  rc = carla_sensor_destroy(s, camera);
  if (rc != CARLA_SERVER_SUCCESS) fail("destroy", rc);
  carla_free_server(s);
  return 0; /* exit at once */
}
