/* The 0.9 sensor pipeline driven from C through include/carla/carla_server.h
 * only; tests/c_api/streaming_host.rs builds it, subscribes two clients to each stream
 * and recomputes every byte it receives.
 *
 * Usage: sensors_host N   (N frames, numbered 1..N)
 *
 * Protocol with the test (stdout lines, stdin line):
 *   1. prints `PORT <p> SAFE <id> LIDAR <id> CAMERA <id>`;
 *   2. waits (10 s at most) until every stream has 2 subscribers;
 *   3. sends N frames of each sensor: the main ("game") thread sends the
 *      safe-distance ids and the lidar hits, a second ("render") thread sends
 *      the camera images (copy path on even frames, zero-copy path on odd
 *      frames). The game thread's two streams are synchronous (5 s bound),
 *      the camera's is queued (depth 64: the render thread never waits,
 *      and with N <= 64 no subscriber can miss a frame): no drops;
 *   4. checks the error codes of bad calls (none of which may send anything),
 *      prints `SENT <N>`;
 *   5. waits for the line `destroy` on stdin (so the test has read every
 *      message before the streams close; a pending message of a destroyed
 *      stream would otherwise race the process exit), destroys the sensors,
 *      checks calls after destruction, frees the server and prints `DONE`.
 *
 * What is sent at frame f (mirrored in tests/c_api/streaming_host.rs):
 *   context of sensor k (0 safe distance, 1 lidar, 2 camera): frame f,
 *     timestamp f * 0.05, location (f, 2, 3 + k), rotation pitch 0, yaw 90,
 *     roll 0;
 *   safe distance: ids {1, 100+f, 200, 100+f, 1, 0} with owner 1 (the
 *     payload must be [100+f, 200]);
 *   lidar: carla_lidar_plan(dt 0.05), then for planned ray i: hit = (i%3 != 0),
 *     distance 5+f, point = direction*(5+f), normal = -direction, actor 7,
 *     tag 10;
 *   camera (8x4): BGRA byte i = (i*7 + f*13 + 5) mod 256.
 *
 * Any failed check prints `sensors_host.c:<line>: ...` to stderr and exits 1. */

#define _POSIX_C_SOURCE 200809L
#define HOST_FILE "sensors_host.c"

#include "carla/carla_server.h"
#include "host_checks.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAMERA_W 8u
#define CAMERA_H 4u
#define CAMERA_BYTES (CAMERA_W * CAMERA_H * 4u)
#define SYNC_WAIT_MS 5000u

/* The capture context of sensor `k` (0 safe, 1 lidar, 2 camera) at frame f. */
static struct carla_capture_context context_for(uint32_t f, int k) {
  struct carla_capture_context c;
  memset(&c, 0, sizeof c);
  c.frame = f;
  c.timestamp = (double)f * 0.05;
  c.transform.location.x = (float)f;
  c.transform.location.y = 2.0f;
  c.transform.location.z = 3.0f + (float)k;
  c.transform.rotation.pitch = 0.0f;
  c.transform.rotation.yaw = 90.0f;
  c.transform.rotation.roll = 0.0f;
  return c;
}

static void fill_pixels(unsigned char *pixels, uint32_t f) {
  uint32_t i;
  for (i = 0; i < CAMERA_BYTES; ++i)
    pixels[i] = (unsigned char)((i * 7u + f * 13u + 5u) & 0xFFu);
}

/* ------------------------------------------------------------ creation */

static uint32_t create(CarlaServerPtr server, const char *blueprint,
                       const char *const *keys, const char *const *values,
                       uint32_t count, uint32_t want_type) {
  char error[512];
  uint32_t id = 0, type = 0;
  int32_t rc;
  error[0] = '\0';
  rc = carla_sensor_create(server, blueprint, keys, values, count, &id, error,
                           sizeof error);
  if (rc != CARLA_SERVER_SUCCESS) {
    fprintf(stderr, "sensors_host.c: creating %s failed (%d): %s\n", blueprint,
            (int)rc, error);
    exit(1);
  }
  OK(carla_sensor_type_id(server, id, &type));
  CHECK(type == want_type);
  OK(carla_sensor_set_synchronous(server, id, SYNC_WAIT_MS));
  return id;
}

/* carla_sensor_create must fail with INVALID_ARGUMENT and an error text
 * containing `needle`. */
static void expect_create_error(CarlaServerPtr server, const char *blueprint,
                                const char *key, const char *value,
                                const char *needle, int line) {
  char error[512];
  uint32_t id = 0xDEADBEEFu;
  const char *keys[1];
  const char *values[1];
  int32_t rc;
  keys[0] = key;
  values[0] = value;
  memset(error, 'x', sizeof error);
  error[sizeof error - 1] = '\0';
  rc = carla_sensor_create(server, blueprint, keys, values, key ? 1u : 0u, &id,
                           error, sizeof error);
  if (rc != CARLA_SERVER_INVALID_ARGUMENT || id != 0xDEADBEEFu ||
      strstr(error, needle) == NULL) {
    fprintf(stderr,
            "sensors_host.c:%d: creating %s with %s=%s returned %d (id %u), "
            "error \"%s\"; expected %d and an error naming \"%s\"\n",
            line, blueprint, key ? key : "(none)", value ? value : "(none)",
            (int)rc, (unsigned)id, error, (int)CARLA_SERVER_INVALID_ARGUMENT,
            needle);
    exit(1);
  }
}

/* ------------------------------------------------ the derived cameras */

/* Optical flow takes two floats a pixel; DVS takes BGRA images and sends
 * events; neither can be mirrored to 0.8 clients; normals can. The sensors
 * are destroyed again. */
static void derived_cameras(CarlaServerPtr server, const char *const *keys,
                            const char *const *values) {
  CarlaImagePtr image = NULL;
  void *target = NULL;
  uint32_t size = 0, flow, dvs, normals, rgb;
  bool wanted;
  struct carla_capture_context ctx = context_for(1, 2);
  static unsigned char bytes[CAMERA_W * CAMERA_H * 8u];
  int k;

  flow = create(server, "sensor.camera.optical_flow", keys, values, 3, 8);
  OK(carla_sensor_acquire_image(server, flow, &image, &target, &size));
  CHECK(image != NULL && target != NULL && size == CAMERA_W * CAMERA_H * 8u);
  carla_image_release(image);
  EXPECT(carla_sensor_send_image(server, flow, &ctx, bytes, CAMERA_BYTES),
         CARLA_SERVER_INVALID_ARGUMENT);
  OK(carla_sensor_send_image(server, flow, &ctx, bytes, sizeof bytes));
  CHECK(carla_sensor_mirror_to_legacy(server, flow, 1) != CARLA_SERVER_SUCCESS);

  dvs = create(server, "sensor.camera.dvs", keys, values, 3, 3);
  CHECK(carla_sensor_mirror_to_legacy(server, dvs, 1) != CARLA_SERVER_SUCCESS);
  for (k = 0; k < 3; ++k) {
    OK(carla_sensor_acquire_image(server, dvs, &image, &target, &size));
    CHECK(size == CAMERA_BYTES);
    memset(target, k % 2 ? 220 : 30, size);
    ctx.timestamp = 0.05 * (k + 1);
    OK(carla_sensor_commit_image(server, image, &ctx));
  }

  /* G-buffers: RGB cameras only; nothing listens yet, so nothing is sent. */
  rgb = create(server, "sensor.camera.rgb", keys, values, 3, 13);
  wanted = true;
  OK(carla_sensor_gbuffer_wanted(server, rgb, 3, &wanted));
  CHECK(!wanted);
  EXPECT(carla_sensor_gbuffer_wanted(server, rgb, 13, &wanted),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_sensor_gbuffer_wanted(server, flow, 0, &wanted),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_sensor_gbuffer_wanted(server, rgb, 0, NULL),
         CARLA_SERVER_NULL_ARGUMENT);
  OK(carla_sensor_send_gbuffer(server, rgb, 0, &ctx, bytes, CAMERA_BYTES));
  EXPECT(carla_sensor_send_gbuffer(server, flow, 0, &ctx, bytes, CAMERA_BYTES),
         CARLA_SERVER_INVALID_ARGUMENT);
  OK(carla_sensor_destroy(server, rgb));

  normals = create(server, "sensor.camera.normals", keys, values, 3, 2);
  OK(carla_sensor_mirror_to_legacy(server, normals, 1));
  OK(carla_sensor_mirror_to_legacy(server, normals, 0));
  OK(carla_sensor_destroy(server, flow));
  OK(carla_sensor_destroy(server, dvs));
  OK(carla_sensor_destroy(server, normals));
}

/* ------------------------------------------------------- render thread */

struct render_args {
  CarlaServerPtr server;
  uint32_t camera;
  uint32_t frames;
};

static void *render_thread(void *p) {
  const struct render_args *a = (const struct render_args *)p;
  unsigned char pixels[CAMERA_BYTES];
  uint32_t f;
  for (f = 1; f <= a->frames; ++f) {
    struct carla_capture_context ctx = context_for(f, 2);
    if (f % 2 == 0) {
      fill_pixels(pixels, f);
      OK(carla_sensor_send_image(a->server, a->camera, &ctx, pixels,
                                 CAMERA_BYTES));
    } else {
      CarlaImagePtr image = NULL;
      void *target = NULL;
      uint32_t size = 0;
      OK(carla_sensor_acquire_image(a->server, a->camera, &image, &target,
                                    &size));
      CHECK(image != NULL && target != NULL);
      CHECK(size == CAMERA_BYTES);
      fill_pixels((unsigned char *)target, f);
      OK(carla_sensor_commit_image(a->server, image, &ctx));
    }
  }
  return NULL;
}

/* ---------------------------------------------------------- game thread */

static struct carla_lidar_hit hits[4096];

static void game_frame(CarlaServerPtr server, uint32_t safe, uint32_t lidar,
                       uint32_t f) {
  struct carla_vector3d owner = {2.4f, 1.0f, 0.8f};
  struct carla_vector3d centre, extent;
  const struct carla_planned_ray *rays = NULL;
  uint32_t ids[6];
  uint32_t count = 0, i;
  struct carla_capture_context safe_ctx = context_for(f, 0);
  struct carla_capture_context lidar_ctx = context_for(f, 1);

  /* Safe distance: front 2.0, back 0.5 (default), lateral 0.5 (default):
   * centre x = (2.0 - 0.5) / 2 = 0.75; half extent x = 2.4 + (2.0 + 0.5) / 2
   * = 3.65, y = 1 + 0.5 = 1.5, z = 0.8. Exact in f32. */
  OK(carla_safe_distance_box(server, safe, owner, &centre, &extent));
  CHECK(centre.x == 0.75f && centre.y == 0.0f && centre.z == 0.0f);
  CHECK(extent.x == 3.65f && extent.y == 1.5f && extent.z == 0.8f);
  ids[0] = 1;
  ids[1] = 100 + f;
  ids[2] = 200;
  ids[3] = 100 + f;
  ids[4] = 1;
  ids[5] = 0;
  OK(carla_sensor_send_actor_ids(server, safe, &safe_ctx, 1, ids, 6));

  /* Lidar: 400 pts/s * 0.05 s / 2 lasers = 10 rays per laser. */
  OK(carla_lidar_plan(server, lidar, 0.05f, &rays, &count));
  CHECK(rays != NULL && count == 20);
  for (i = 0; i < count; ++i) {
    float d = 5.0f + (float)f;
    struct carla_lidar_hit *h = &hits[i];
    struct carla_vector3d dir = rays[i].direction;
    CHECK(rays[i].channel == i / 10);
    h->ray_index = i;
    h->hit = (i % 3 != 0) ? 1u : 0u;
    h->distance_m = d;
    h->point_sensor.x = dir.x * d;
    h->point_sensor.y = dir.y * d;
    h->point_sensor.z = dir.z * d;
    h->normal_sensor.x = -dir.x;
    h->normal_sensor.y = -dir.y;
    h->normal_sensor.z = -dir.z;
    h->actor_id = 7;
    h->semantic_tag = 10;
  }
  OK(carla_lidar_send_hits(server, lidar, &lidar_ctx, hits, count));
}

/* ------------------------------------------------------------ bad input */

static void bad_input(CarlaServerPtr server, uint32_t safe, uint32_t lidar,
                      uint32_t camera) {
  struct carla_capture_context ctx = context_for(999, 0);
  unsigned char pixels[CAMERA_BYTES];
  struct carla_vector3d owner = {1.0f, 1.0f, 1.0f}, centre, extent;
  const struct carla_planned_ray *rays = NULL;
  uint32_t id = 0, count = 0, type = 0, ids[2] = {5, 6};
  CarlaImagePtr image = NULL;
  void *target = NULL;
  uint32_t size = 0;
  char small[8];
  const char *key = "channels";
  const char *value = "abc";
  uint32_t n;

  memset(pixels, 0x5A, sizeof pixels);

  /* Creation errors name what is wrong. */
  expect_create_error(server, "sensor.camera.nope", NULL, NULL,
                      "sensor.camera.nope", __LINE__);
  /* Only the RGB camera has post-processing attributes (as in CARLA). */
  expect_create_error(server, "sensor.camera.depth", "shutter_speed", "100",
                      "shutter_speed", __LINE__);
  expect_create_error(server, "sensor.lidar.ray_cast_semantic", "channels",
                      "0", "channels", __LINE__);
  expect_create_error(server, "sensor.lidar.ray_cast_semantic", "range", "abc",
                      "range", __LINE__);
  expect_create_error(server, "sensor.camera.rgb", "fov", "180", "fov",
                      __LINE__);
  expect_create_error(server, "sensor.other.safe_distance",
                      "safe_distance_front", "-1", "safe_distance_front",
                      __LINE__);
  /* A NULL or short error buffer is fine (truncated, NUL-terminated). */
  EXPECT(carla_sensor_create(server, "sensor.camera.nope", NULL, NULL, 0, &id,
                             NULL, 0),
         CARLA_SERVER_INVALID_ARGUMENT);
  memset(small, 'x', sizeof small);
  EXPECT(carla_sensor_create(server, "sensor.lidar.ray_cast_semantic", &key,
                             &value, 1, &id, small, sizeof small),
         CARLA_SERVER_INVALID_ARGUMENT);
  CHECK(small[sizeof small - 1] == '\0' && strlen(small) == sizeof small - 1);

  /* NULL pointers. */
  EXPECT(carla_server_listen_streaming(NULL, 0, NULL),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_create(NULL, "sensor.camera.rgb", NULL, NULL, 0, &id,
                             NULL, 0),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_create(server, NULL, NULL, NULL, 0, &id, NULL, 0),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_create(server, "sensor.camera.rgb", NULL, NULL, 0, NULL,
                             NULL, 0),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_create(server, "sensor.camera.rgb", NULL, &value, 1, &id,
                             NULL, 0),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_destroy(NULL, camera), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_type_id(NULL, camera, &type),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_type_id(server, camera, NULL),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_set_queued(NULL, camera, 1), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_set_queued(server, camera, 65),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_sensor_set_queued(server, 0xFFFFu, 1),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_sensor_set_synchronous(NULL, camera, 0),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_subscriber_count(NULL, camera, &n),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_subscriber_count(server, camera, NULL),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_send_image(NULL, camera, &ctx, pixels, CAMERA_BYTES),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_send_image(server, camera, NULL, pixels, CAMERA_BYTES),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_send_image(server, camera, &ctx, NULL, CAMERA_BYTES),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_acquire_image(NULL, camera, &image, &target, &size),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_acquire_image(server, camera, NULL, &target, &size),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_acquire_image(server, camera, &image, NULL, &size),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_acquire_image(server, camera, &image, &target, NULL),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_commit_image(server, NULL, &ctx),
         CARLA_SERVER_NULL_ARGUMENT);
  carla_image_release(NULL);
  EXPECT(carla_lidar_plan(NULL, lidar, 0.05f, &rays, &count),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_lidar_plan(server, lidar, 0.05f, NULL, &count),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_lidar_plan(server, lidar, 0.05f, &rays, NULL),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_lidar_send_hits(server, lidar, NULL, hits, 20),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_lidar_send_hits(server, lidar, &ctx, NULL, 20),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_safe_distance_box(NULL, safe, owner, &centre, &extent),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_safe_distance_box(server, safe, owner, NULL, &extent),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_safe_distance_box(server, safe, owner, &centre, NULL),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_send_actor_ids(server, safe, NULL, 1, ids, 2),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_send_actor_ids(server, safe, &ctx, 1, NULL, 2),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_send_raw(server, safe, NULL, ids, 8),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_send_raw(server, safe, &ctx, NULL, 8),
         CARLA_SERVER_NULL_ARGUMENT);

  /* Wrong sizes. */
  EXPECT(carla_sensor_send_image(server, camera, &ctx, pixels,
                                 CAMERA_BYTES - 1),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_sensor_send_image(server, camera, &ctx, pixels, 0),
         CARLA_SERVER_INVALID_ARGUMENT);

  /* Wrong kinds. */
  EXPECT(carla_sensor_send_image(server, lidar, &ctx, pixels, CAMERA_BYTES),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_sensor_acquire_image(server, safe, &image, &target, &size),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_lidar_plan(server, camera, 0.05f, &rays, &count),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_lidar_send_hits(server, safe, &ctx, hits, 20),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_safe_distance_box(server, lidar, owner, &centre, &extent),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_sensor_send_actor_ids(server, camera, &ctx, 1, ids, 2),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_sensor_mirror_to_legacy(server, safe, 5),
         CARLA_SERVER_INVALID_ARGUMENT);

  /* Lidar hits that do not match the last plan (20 rays, from frame N):
   * an index out of range, a duplicate index, one hit missing, a NaN
   * distance. `hits` still holds the last frame's valid hits. */
  hits[19].ray_index = 20;
  EXPECT(carla_lidar_send_hits(server, lidar, &ctx, hits, 20),
         CARLA_SERVER_INVALID_ARGUMENT);
  hits[19].ray_index = 0xFFFFFFFFu;
  EXPECT(carla_lidar_send_hits(server, lidar, &ctx, hits, 20),
         CARLA_SERVER_INVALID_ARGUMENT);
  hits[19].ray_index = 18;
  EXPECT(carla_lidar_send_hits(server, lidar, &ctx, hits, 20),
         CARLA_SERVER_INVALID_ARGUMENT);
  hits[19].ray_index = 19;
  EXPECT(carla_lidar_send_hits(server, lidar, &ctx, hits, 19),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_lidar_send_hits(server, lidar, &ctx, hits, 21),
         CARLA_SERVER_INVALID_ARGUMENT);
  CHECK(hits[1].hit != 0);
  hits[1].distance_m = NAN;
  EXPECT(carla_lidar_send_hits(server, lidar, &ctx, hits, 20),
         CARLA_SERVER_INVALID_ARGUMENT);
  hits[1].distance_m = 1.0f;

  /* An acquired image released without sending: nothing reaches the
   * stream (the test expects end of file right after frame N). */
  OK(carla_sensor_acquire_image(server, camera, &image, &target, &size));
  CHECK(image != NULL && target != NULL && size == CAMERA_BYTES);
  memset(target, 0xEE, size);
  carla_image_release(image);

  /* Unknown ids. */
  EXPECT(carla_sensor_type_id(server, 0xABCDEF, &type),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_sensor_send_image(server, 0xABCDEF, &ctx, pixels, CAMERA_BYTES),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_sensor_destroy(server, 0xABCDEF), CARLA_SERVER_UNKNOWN_SENSOR);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
  CarlaServerPtr server;
  uint32_t port = 0, again = 0, safe, lidar, camera, frames, f, needed = 0;
  uint32_t sensors[3];
  long waited;
  int k;
  pthread_t render;
  struct render_args args;
  char line[64];
  char *definitions;
  struct carla_capture_context ctx = context_for(1000, 0);
  unsigned char pixels[CAMERA_BYTES];
  uint32_t ids[1] = {5};
  const struct carla_planned_ray *rays = NULL;
  uint32_t count = 0, type = 0;
  CarlaImagePtr late_image = NULL, no_image = NULL;
  void *target = NULL;
  uint32_t size = 0;
  struct carla_vector3d owner = {1.0f, 1.0f, 1.0f}, centre, extent;

  static const char *const safe_keys[] = {"safe_distance_front"};
  static const char *const safe_values[] = {"2.0"};
  static const char *const lidar_keys[] = {"channels", "points_per_second",
                                           "rotation_frequency", "upper_fov",
                                           "lower_fov", "range"};
  static const char *const lidar_values[] = {"2", "400", "10", "10", "-10",
                                             "50"};
  static const char *const camera_keys[] = {"image_size_x", "image_size_y",
                                            "fov"};
  static const char *const camera_values[] = {"8", "4", "70"};

  if (argc != 2 || atoi(argv[1]) <= 0) {
    fprintf(stderr, "usage: %s FRAMES\n", argv[0]);
    return 2;
  }
  frames = (uint32_t)atoi(argv[1]);
  memset(pixels, 0, sizeof pixels);

  /* The definitions list the blueprints' attributes. */
  OK(carla_sensor_definitions(NULL, 0, &needed));
  CHECK(needed > 1);
  definitions = (char *)malloc(needed);
  CHECK(definitions != NULL);
  OK(carla_sensor_definitions(definitions, needed, NULL));
  CHECK(strlen(definitions) == needed - 1);
  CHECK(strstr(definitions,
               "sensor.other.safe_distance safe_distance_front float 1.0") !=
        NULL);
  CHECK(strstr(definitions, "sensor.camera.rgb image_size_x int 800") != NULL);
  free(definitions);

  server = carla_make_server();
  CHECK(server != NULL);
  /* Sensors need the streaming port. */
  EXPECT(carla_sensor_create(server, "sensor.camera.rgb", NULL, NULL, 0,
                             &camera, NULL, 0),
         CARLA_SERVER_INVALID_ARGUMENT);
  OK(carla_server_listen_streaming(server, 0, &port));
  CHECK(port > 0 && port <= 65535);
  CHECK(carla_server_listen_streaming(server, 0, &again) !=
        CARLA_SERVER_SUCCESS);

  derived_cameras(server, camera_keys, camera_values);
  safe = create(server, "sensor.other.safe_distance", safe_keys, safe_values,
                1, 22);
  lidar = create(server, "sensor.lidar.ray_cast_semantic", lidar_keys,
                 lidar_values, 6, 10);
  camera = create(server, "sensor.camera.rgb", camera_keys, camera_values, 3,
                  13);
  if (frames > 64) fail(__LINE__, "at most 64 frames (the camera's queue depth)");
  OK(carla_sensor_set_queued(server, camera, 64));
  CHECK(safe != lidar && lidar != camera && safe != camera);
  sensors[0] = safe;
  sensors[1] = lidar;
  sensors[2] = camera;

  printf("PORT %u SAFE %u LIDAR %u CAMERA %u\n", (unsigned)port,
         (unsigned)safe, (unsigned)lidar, (unsigned)camera);
  fflush(stdout);

  for (waited = 0;; ++waited) {
    uint32_t ready = 0;
    for (k = 0; k < 3; ++k) {
      uint32_t n = 0;
      OK(carla_sensor_subscriber_count(server, sensors[k], &n));
      CHECK(n <= 2);
      ready += (n == 2);
    }
    if (ready == 3)
      break;
    if (waited >= 10000)
      fail(__LINE__, "not every stream had 2 subscribers after 10 s");
    sleep_ms(1);
  }

  args.server = server;
  args.camera = camera;
  args.frames = frames;
  CHECK(pthread_create(&render, NULL, render_thread, &args) == 0);
  for (f = 1; f <= frames; ++f)
    game_frame(server, safe, lidar, f);
  CHECK(pthread_join(render, NULL) == 0);

  bad_input(server, safe, lidar, camera);
  printf("SENT %u\n", (unsigned)frames);
  fflush(stdout);

  if (fgets(line, sizeof line, stdin) == NULL || strcmp(line, "destroy\n") != 0)
    fail(__LINE__, "expected the line `destroy` on stdin");

  /* An image acquired before its camera is destroyed cannot be committed
   * after (the handle is freed anyway). */
  OK(carla_sensor_acquire_image(server, camera, &late_image, &target, &size));
  for (k = 0; k < 3; ++k) {
    OK(carla_sensor_destroy(server, sensors[k]));
    EXPECT(carla_sensor_destroy(server, sensors[k]),
           CARLA_SERVER_UNKNOWN_SENSOR);
    EXPECT(carla_sensor_type_id(server, sensors[k], &type),
           CARLA_SERVER_UNKNOWN_SENSOR);
    EXPECT(carla_sensor_subscriber_count(server, sensors[k], &count),
           CARLA_SERVER_UNKNOWN_SENSOR);
    EXPECT(carla_sensor_set_synchronous(server, sensors[k], 0),
           CARLA_SERVER_UNKNOWN_SENSOR);
    EXPECT(carla_sensor_set_queued(server, sensors[k], 8),
           CARLA_SERVER_UNKNOWN_SENSOR);
    EXPECT(carla_sensor_send_raw(server, sensors[k], &ctx, ids, 4),
           CARLA_SERVER_UNKNOWN_SENSOR);
  }
  EXPECT(carla_sensor_send_actor_ids(server, safe, &ctx, 1, ids, 1),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_safe_distance_box(server, safe, owner, &centre, &extent),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_lidar_plan(server, lidar, 0.05f, &rays, &count),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_lidar_send_hits(server, lidar, &ctx, hits, 20),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_sensor_send_image(server, camera, &ctx, pixels, CAMERA_BYTES),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_sensor_acquire_image(server, camera, &no_image, &target, &size),
         CARLA_SERVER_UNKNOWN_SENSOR);
  CHECK(no_image == NULL);
  EXPECT(carla_sensor_commit_image(server, late_image, &ctx),
         CARLA_SERVER_UNKNOWN_SENSOR);
  EXPECT(carla_sensor_mirror_to_legacy(server, camera, 5),
         CARLA_SERVER_UNKNOWN_SENSOR);

  carla_free_server(server);
  printf("DONE\n");
  fflush(stdout);
  return 0;
}
