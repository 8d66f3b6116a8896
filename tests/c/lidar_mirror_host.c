/* Lidars mirrored to the 0.8 stream port, driven from C through
 * include/carla/carla_server.h only; tests/c_api/lidar_mirror.rs builds it,
 * plays a 0.8 episode against it with the Rust 0.8 client and recomputes
 * every lidar record it receives.
 *
 * Usage: lidar_mirror_host PORT FRAMES
 *
 * 1. creates a semantic lidar (2 channels, 400 points/s, 10 Hz, +10..-10
 *    degrees) and a ray-cast lidar (3 channels, 1200 points/s, 10 Hz,
 *    +15..-15 degrees, noise_seed 7, the default drop-off: the plan leaves
 *    rays out), checks the mirror's bad calls, mirrors them to the 0.8 ids
 *    SEM_ID and RAY_ID, makes the semantic lidar's 0.9 stream synchronous,
 *    binds PORT and prints `PORT <p> STREAM <s> SEM <id> RAY <id>`;
 * 2. waits (10 s at most) for one 0.9 subscriber of the semantic lidar;
 * 3. frame 0, before any 0.8 episode: plans and sends hits for both lidars
 *    (the mirror has nowhere to write; the sends must still succeed);
 * 4. serves one synchronous 0.8 episode whose scene lists both lidars, with
 *    frames 1..FRAMES+1; before frame FRAMES+1 it stops the ray-cast
 *    lidar's mirror (`carla_sensor_mirror_to_legacy(.., 0)`);
 * 5. waits for the client to leave, frees the server, prints `DONE`.
 *
 * Every frame f (0 included), for each lidar: carla_lidar_plan(dt 0.05),
 * then the hits in reverse ray order: planned ray i hits when i % 3 != 0,
 * distance 5 + f, point (i, channel of ray i, f), normal -direction, actor
 * 7, tag 10; capture frame (1 << 32) | f. Then the 0.8 measurements with
 * frame_number f and a control read.
 *
 * Any failed check prints `lidar_mirror_host.c:<line>: ...` to stderr and
 * exits 1. */

#define _POSIX_C_SOURCE 200809L
#define HOST_FILE "lidar_mirror_host.c"

#include "carla/carla_server.h"
#include "host_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEM_ID 0x11D00001u
#define RAY_ID 0x11D00002u
#define T 10000u
#define MAX_RAYS 64u

static uint32_t create(CarlaServerPtr server, const char *blueprint,
                       const char *const *keys, const char *const *values,
                       uint32_t count) {
  char error[512];
  uint32_t id = 0;
  error[0] = '\0';
  if (carla_sensor_create(server, blueprint, keys, values, count, &id, error,
                          sizeof error) != CARLA_SERVER_SUCCESS) {
    fprintf(stderr, "lidar_mirror_host.c: creating %s failed: %s\n", blueprint,
            error);
    exit(1);
  }
  return id;
}

/* Plans and sends one tick of `lidar` for frame f (see the header). */
static void sweep(CarlaServerPtr server, uint32_t lidar, uint32_t f) {
  const struct carla_planned_ray *rays = NULL;
  struct carla_lidar_hit hits[MAX_RAYS];
  struct carla_capture_context ctx;
  uint32_t count = 0, i;
  OK(carla_lidar_plan(server, lidar, 0.05f, &rays, &count));
  CHECK(count > 0 && count <= MAX_RAYS);
  memset(hits, 0, sizeof hits);
  for (i = 0; i < count; ++i) {
    struct carla_lidar_hit *h = &hits[count - 1 - i]; /* reverse order */
    float d = 5.0f + (float)f;
    h->ray_index = i;
    h->hit = (i % 3 != 0);
    h->distance_m = d;
    h->point_sensor.x = (float)i;
    h->point_sensor.y = (float)rays[i].channel;
    h->point_sensor.z = (float)f;
    h->normal_sensor.x = -rays[i].direction.x;
    h->normal_sensor.y = -rays[i].direction.y;
    h->normal_sensor.z = -rays[i].direction.z;
    h->actor_id = 7;
    h->semantic_tag = 10;
  }
  memset(&ctx, 0, sizeof ctx);
  ctx.frame = ((uint64_t)1 << 32) | f;
  ctx.timestamp = (double)f * 0.05;
  OK(carla_lidar_send_hits(server, lidar, &ctx, hits, count));
}

static void write_measurements(CarlaServerPtr server, uint32_t f) {
  struct carla_measurements m;
  memset(&m, 0, sizeof m);
  m.frame_number = f;
  m.platform_timestamp = 1000 + f;
  m.game_timestamp = 50 * f;
  OK(carla_write_measurements(server, &m));
}

int main(int argc, char **argv) {
  static const char *const sem_keys[] = {"channels", "points_per_second",
                                         "rotation_frequency", "upper_fov",
                                         "lower_fov", "range"};
  static const char *const sem_values[] = {"2", "400", "10", "10", "-10", "50"};
  static const char *const ray_keys[] = {"channels", "points_per_second",
                                         "rotation_frequency", "upper_fov",
                                         "lower_fov", "range", "noise_seed"};
  static const char *const ray_values[] = {"3", "1200", "10", "15", "-15", "50",
                                           "7"};
  struct carla_sensor_definition sensors[2] = {
      {SEM_ID, CARLA_SERVER_LIDAR_RAY_CAST, "Lidar/Semantic"},
      {RAY_ID, CARLA_SERVER_LIDAR_RAY_CAST, "Lidar/RayCast"},
  };
  struct carla_transform spot;
  struct carla_scene_description scene;
  struct carla_request_new_episode req;
  struct carla_episode_start start;
  struct carla_episode_ready ready = {true};
  struct carla_control control;
  CarlaServerPtr server;
  uint32_t port, frames, stream_port = 0, sem, ray, safe, f, waited, n;
  int32_t code;
  int tries = 0;

  if (argc != 3 || atoi(argv[2]) <= 0) {
    fprintf(stderr, "usage: %s PORT FRAMES\n", argv[0]);
    return 2;
  }
  port = (uint32_t)strtoul(argv[1], NULL, 10);
  frames = (uint32_t)atoi(argv[2]);

  server = carla_make_server();
  CHECK(server != NULL);
  OK(carla_server_set_bind_address(server, "127.0.0.1"));
  OK(carla_server_listen_streaming(server, 0, &stream_port));
  sem = create(server, "sensor.lidar.ray_cast_semantic", sem_keys, sem_values, 6);
  ray = create(server, "sensor.lidar.ray_cast", ray_keys, ray_values, 7);
  safe = create(server, "sensor.other.safe_distance", NULL, NULL, 0);

  /* Only cameras and lidars mirror; the usual codes for the rest. */
  EXPECT(carla_sensor_mirror_to_legacy(server, safe, SEM_ID),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_sensor_mirror_to_legacy(NULL, sem, SEM_ID),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_sensor_mirror_to_legacy(server, 0xFFFFu, SEM_ID),
         CARLA_SERVER_UNKNOWN_SENSOR);
  OK(carla_sensor_mirror_to_legacy(server, sem, SEM_ID));
  OK(carla_sensor_mirror_to_legacy(server, ray, RAY_ID));
  OK(carla_sensor_set_synchronous(server, sem, 5000));
  OK(carla_server_connect(server, port, T));
  printf("PORT %u STREAM %u SEM %u RAY %u\n", (unsigned)port,
         (unsigned)stream_port, (unsigned)sem, (unsigned)ray);
  fflush(stdout);

  for (waited = 0;; ++waited) {
    n = 0;
    OK(carla_sensor_subscriber_count(server, sem, &n));
    if (n == 1) break;
    if (waited >= 10000) fail(__LINE__, "no subscriber of the semantic lidar after 10 s");
    sleep_ms(1);
  }

  /* No 0.8 episode yet: the mirror writes nothing, the sends succeed. */
  sweep(server, sem, 0);
  sweep(server, ray, 0);

  do { /* the client may still be connecting */
    code = carla_read_request_new_episode(server, &req, T);
  } while (code == CARLA_SERVER_TRY_AGAIN && ++tries < 3);
  OK(code);
  memset(&spot, 0, sizeof spot);
  spot.orientation.x = 1.0f;
  scene.map_name = "LidarTown";
  scene.player_start_spots = &spot;
  scene.number_of_player_start_spots = 1;
  scene.sensors = sensors;
  scene.number_of_sensors = 2;
  OK(carla_write_scene_description(server, &scene, T));
  OK(carla_read_episode_start(server, &start, T));
  OK(carla_write_episode_ready(server, &ready, T));

  for (f = 1; f <= frames + 1; ++f) {
    if (f == frames + 1) OK(carla_sensor_mirror_to_legacy(server, ray, 0));
    sweep(server, sem, f);
    sweep(server, ray, f);
    write_measurements(server, f);
    OK(carla_read_control(server, &control, T));
  }

  /* The client leaves: its world connection ends with an error code. */
  tries = 0;
  do {
    code = carla_read_request_new_episode(server, &req, T);
  } while (code == CARLA_SERVER_TRY_AGAIN && ++tries < 3);
  CHECK(code != CARLA_SERVER_SUCCESS && code != CARLA_SERVER_TRY_AGAIN);
  carla_free_server(server);
  printf("DONE\n");
  fflush(stdout);
  return 0;
}
