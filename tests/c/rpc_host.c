/* A CARLA 0.9.16 world on the library's C API alone, for
 * tests/rpc/python.rs: the unmodified `carla` Python package drives it.
 *
 * Prints `RPC <port> STREAM <port> 0.9.12=<port> ... 0.9.15=<port>` (the ports
 * of the older client releases), then serves until stdin closes: answers spawn,
 * destroy, settings and tick requests; captures a camera (every byte =
 * frame % 256), a semantic lidar (every ray hits at 10 m) and the
 * safe-distance sensor (every other vehicle); sends the episode state after
 * each tick's sensor data. Asynchronous mode ticks every 20 ms. Prints
 * `SENSOR <actor> <sensor>` for every sensor spawned. */
#include "carla/carla_server.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ACTORS 64

struct actor {
  uint32_t id, parent, sensor;
  int vehicle;
  char blueprint[64];
  struct carla_actor_transform transform;
};

static struct actor actors[MAX_ACTORS];
static int actor_count;
static atomic_int stop;

static void *watch_stdin(void *unused) {
  char line[64];
  (void)unused;
  while (fgets(line, sizeof line, stdin) != NULL) {
  }
  atomic_store(&stop, 1);
  return NULL;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void check(int32_t rc, const char *what) {
  if (rc != CARLA_SERVER_SUCCESS) {
    fprintf(stderr, "rpc_host.c: %s failed (%d)\n", what, (int)rc);
    exit(1);
  }
}

static void expect(int32_t rc, int32_t want, const char *what) {
  if (rc != want) {
    fprintf(stderr, "rpc_host.c: %s returned %d, expected %d\n", what, (int)rc,
            (int)want);
    exit(1);
  }
}

/* NULL pointers, unknown ids and bad types get their codes, never a crash. */
static void check_bad_arguments(CarlaServerPtr server) {
  struct carla_rpc_request req;
  struct carla_episode_frame frame;
  struct carla_episode_settings settings;
  static const char *const keys[] = {"x"};
  static const uint8_t bad_type[] = {9};
  static const char *const values[] = {"1"};
  memset(&frame, 0, sizeof frame);
  expect(carla_rpc_listen(NULL, 0, NULL), CARLA_SERVER_NULL_ARGUMENT, "listen(NULL)");
  struct carla_ros2_stats ros;
  expect(carla_ros2_start(server, 233), CARLA_SERVER_INVALID_ARGUMENT, "ros2_start(domain 233)");
  expect(carla_ros2_start_with(server, 233, 0), CARLA_SERVER_INVALID_ARGUMENT,
         "ros2_start_with(domain 233)");
  expect(carla_ros2_start_with(server, 0, 65001), CARLA_SERVER_INVALID_ARGUMENT,
         "ros2_start_with(datagram 65001)");
  expect(carla_ros2_start_with(NULL, 0, 0), CARLA_SERVER_NULL_ARGUMENT, "ros2_start_with(NULL)");
  expect(carla_sensor_publish_ros2(server, 999999, NULL, "x", NULL), CARLA_SERVER_UNKNOWN_SENSOR,
         "publish_ros2(unknown sensor)");
  expect(carla_sensor_publish_ros2(server, 999999, NULL, NULL, NULL), CARLA_SERVER_NULL_ARGUMENT,
         "publish_ros2(NULL name)");
  expect(carla_ros2_get_stats(server, NULL), CARLA_SERVER_NULL_ARGUMENT, "ros2_stats(NULL)");
  check(carla_ros2_get_stats(server, &ros), "ros2_get_stats");
  expect(ros.published == 0 && ros.dropped == 0 && ros.rejoins == 0, 1,
         "nothing published before ros2_start");
  expect(carla_rpc_listen_release(server, NULL, 0, NULL), CARLA_SERVER_NULL_ARGUMENT,
         "listen_release(, NULL release)");
  expect(carla_rpc_listen_release(server, "0.9.11", 0, NULL), CARLA_SERVER_INVALID_ARGUMENT,
         "listen_release(0.9.11)");
  expect(carla_rpc_listen_release(server, "0.9.12", 0, NULL), 106 /* already connected */,
         "listen_release(0.9.12) twice");
  expect(carla_rpc_poll(NULL, 0, &req), CARLA_SERVER_NULL_ARGUMENT, "poll(NULL)");
  expect(carla_rpc_poll(server, 0, NULL), CARLA_SERVER_NULL_ARGUMENT, "poll(, NULL)");
  expect(carla_rpc_poll(server, 0, &req), CARLA_SERVER_TRY_AGAIN, "poll, none queued");
  expect(carla_rpc_answer(server, 12345, 0, NULL), CARLA_SERVER_INVALID_ARGUMENT,
         "answer(unknown id)");
  expect(carla_rpc_send_episode_state(server, NULL, NULL, 0),
         CARLA_SERVER_NULL_ARGUMENT, "state(NULL frame)");
  expect(carla_rpc_send_episode_state(server, &frame, NULL, 3),
         CARLA_SERVER_NULL_ARGUMENT, "state(NULL states, 3)");
  expect(carla_rpc_add_blueprint(server, NULL, NULL, NULL, NULL, 0, NULL),
         CARLA_SERVER_NULL_ARGUMENT, "blueprint(NULL id)");
  expect(carla_rpc_add_blueprint(server, "prop.x", keys, bad_type, values, 1, NULL),
         CARLA_SERVER_INVALID_ARGUMENT, "blueprint(type 9)");
  expect(carla_rpc_set_map(server, NULL, NULL, 0, NULL), CARLA_SERVER_NULL_ARGUMENT,
         "set_map(NULL name)");
  expect(carla_rpc_settings(server, NULL), CARLA_SERVER_NULL_ARGUMENT,
         "settings(NULL)");
  expect(carla_rpc_settings(NULL, &settings), CARLA_SERVER_NULL_ARGUMENT,
         "settings(NULL server)");
}

static struct actor *find(uint32_t id) {
  int i;
  for (i = 0; i < actor_count; ++i) {
    if (actors[i].id == id) return &actors[i];
  }
  return NULL;
}

static void capture(CarlaServerPtr server, const struct actor *a,
                    uint64_t frame, double elapsed, double dt) {
  struct carla_capture_context ctx;
  const struct actor *parent = find(a->parent);
  memset(&ctx, 0, sizeof ctx);
  ctx.frame = frame;
  ctx.timestamp = elapsed;
  ctx.transform = a->transform;
  if (parent != NULL) {
    ctx.transform.location.x += parent->transform.location.x;
    ctx.transform.location.y += parent->transform.location.y;
    ctx.transform.location.z += parent->transform.location.z;
  }
  if (strcmp(a->blueprint, "sensor.camera.rgb") == 0) {
    CarlaImagePtr image;
    void *pixels;
    uint32_t size;
    check(carla_sensor_acquire_image(server, a->sensor, &image, &pixels, &size),
          "acquire image");
    memset(pixels, (int)(frame % 256), size);
    check(carla_sensor_commit_image(server, image, &ctx), "commit image");
  } else if (strcmp(a->blueprint, "sensor.lidar.ray_cast_semantic") == 0) {
    const struct carla_planned_ray *rays;
    struct carla_lidar_hit *hits;
    uint32_t count, i;
    check(carla_lidar_plan(server, a->sensor, (float)dt, &rays, &count), "plan");
    hits = calloc(count ? count : 1, sizeof *hits);
    for (i = 0; i < count; ++i) {
      hits[i].ray_index = i;
      hits[i].hit = 1;
      hits[i].distance_m = 10.0f;
      hits[i].point_sensor.x = rays[i].direction.x * 10.0f;
      hits[i].point_sensor.y = rays[i].direction.y * 10.0f;
      hits[i].point_sensor.z = rays[i].direction.z * 10.0f;
      hits[i].normal_sensor.x = -rays[i].direction.x;
      hits[i].semantic_tag = 1;
    }
    check(carla_lidar_send_hits(server, a->sensor, &ctx, hits, count), "hits");
    free(hits);
  } else if (strcmp(a->blueprint, "sensor.other.safe_distance") == 0) {
    uint32_t ids[MAX_ACTORS];
    uint32_t n = 0;
    int i;
    for (i = 0; i < actor_count; ++i) {
      if (actors[i].vehicle && actors[i].id != a->parent) ids[n++] = actors[i].id;
    }
    check(carla_sensor_send_actor_ids(server, a->sensor, &ctx, a->parent, ids, n),
          "actor ids");
  }
}

int main(void) {
  CarlaServerPtr server = carla_make_server();
  uint32_t port = 0, stream_port = 0;
  pthread_t watcher;
  uint64_t frame = 0;
  double elapsed = 0.0, next, started = now_seconds();
  struct carla_episode_settings settings;
  static const char *const keys[] = {"role_name", "color", "number_of_wheels"};
  static const uint8_t types[] = {CARLA_RPC_ATTRIBUTE_STRING,
                                  CARLA_RPC_ATTRIBUTE_RGB,
                                  CARLA_RPC_ATTRIBUTE_INT};
  static const char *const values[] = {"autopilot", "255,0,0", "4"};
  struct carla_actor_box box = {{0.0f, 0.0f, 0.75f}, {2.0f, 1.0f, 0.75f}};

  check(carla_server_listen_streaming(server, 0, &stream_port), "streaming");
  check(carla_rpc_listen(server, 0, &port), "listen");
  check(carla_rpc_add_blueprint(server, "vehicle.test.box", keys, types, values,
                                3, &box),
        "blueprint");
  check(carla_rpc_settings(server, &settings), "settings");
  /* Clients of the older releases, each on its own port, in this world. */
  static const char *const releases[] = {"0.9.12", "0.9.13", "0.9.14", "0.9.15"};
  uint32_t release_ports[4];
  for (int i = 0; i < 4; ++i) {
    check(carla_rpc_listen_release(server, releases[i], 0, &release_ports[i]), releases[i]);
  }
  check_bad_arguments(server);
  printf("RPC %u STREAM %u", (unsigned)port, (unsigned)stream_port);
  for (int i = 0; i < 4; ++i) {
    printf(" %s=%u", releases[i], (unsigned)release_ports[i]);
  }
  printf("\n");
  fflush(stdout);
  pthread_create(&watcher, NULL, watch_stdin, NULL);
  next = now_seconds();
  while (!atomic_load(&stop)) {
    struct carla_rpc_request req;
    int sync = settings.synchronous_mode;
    int step = 0, tick = 0;
    double wait = sync ? 0.02 : next - now_seconds();
    int32_t rc = carla_rpc_poll(server, wait > 0 ? (uint32_t)(wait * 1000) : 0, &req);
    if (rc == CARLA_SERVER_SUCCESS) {
      switch (req.kind) {
        case CARLA_RPC_SPAWN_ACTOR:
          if (strcmp(req.blueprint_id, "sensor.camera.depth") == 0 ||
              actor_count == MAX_ACTORS) {
            check(carla_rpc_answer(server, req.request_id, 0,
                                   "refused by the test host: no depth cameras here"),
                  "answer");
            break;
          }
          actors[actor_count].id = req.actor_id;
          actors[actor_count].parent = req.parent_id;
          actors[actor_count].sensor = req.sensor_id;
          actors[actor_count].transform = req.transform;
          actors[actor_count].vehicle = strncmp(req.blueprint_id, "vehicle.", 8) == 0;
          snprintf(actors[actor_count].blueprint, sizeof actors[0].blueprint, "%s",
                   req.blueprint_id);
          ++actor_count;
          if (req.sensor_id != 0) {
            printf("SENSOR %u %u\n", (unsigned)req.actor_id, (unsigned)req.sensor_id);
            fflush(stdout);
          }
          check(carla_rpc_answer(server, req.request_id, 0, NULL), "answer");
          break;
        case CARLA_RPC_DESTROY_ACTOR: {
          struct actor *a = find(req.actor_id);
          if (a != NULL) *a = actors[--actor_count];
          check(carla_rpc_answer(server, req.request_id, 0, NULL), "answer");
          break;
        }
        case CARLA_RPC_EPISODE_SETTINGS:
          settings = req.settings;
          check(carla_rpc_answer(server, req.request_id, 0, NULL), "answer");
          break;
        case CARLA_RPC_TICK:
          step = tick = 1;
          break;
        default:
          /* Actor and traffic-light commands: reported for the test;
             transforms, controls, weather: nothing moves here. */
          if (req.kind >= CARLA_RPC_SIMULATE_PHYSICS) {
            printf("COMMAND %u %u %d %u %g %g %g %g\n", (unsigned)req.kind,
                   (unsigned)req.actor_id, req.enabled ? 1 : 0, (unsigned)req.value,
                   (double)req.scalar, (double)req.velocity.x, (double)req.velocity.y,
                   (double)req.velocity.z);
            if (req.kind == CARLA_RPC_V2X_SEND) {
              printf("V2X %u %.*s\n", (unsigned)req.actor_id, (int)req.opendrive_length,
                     req.opendrive);
            }
            if (req.kind == CARLA_RPC_PHYSICS_CONTROL) {
              struct carla_physics_control p;
              check(carla_rpc_request_physics_control(&req, &p), "physics control");
              printf("PHYSICS %g %g %g %g\n", (double)p.max_steer_angle,
                     (double)p.drag_coefficient, (double)p.max_rpm,
                     (double)p.center_of_mass.z);
            }
            if (req.kind == CARLA_RPC_ACKERMANN_SETTINGS) {
              struct carla_ackermann_settings g;
              check(carla_rpc_request_ackermann_settings(&req, &g), "ackermann settings");
              printf("GAINS %g %g %g %g %g %g\n", (double)g.speed_kp, (double)g.speed_ki,
                     (double)g.speed_kd, (double)g.accel_kp, (double)g.accel_ki,
                     (double)g.accel_kd);
            }
            if (req.kind == CARLA_RPC_ACKERMANN_CONTROL) {
              struct carla_ackermann_control a;
              check(carla_rpc_request_ackermann_control(&req, &a), "ackermann control");
              printf("ACKERMANN %g %g %g %g %g\n", (double)a.steer, (double)a.steer_speed,
                     (double)a.speed, (double)a.acceleration, (double)a.jerk);
            }
            if (req.kind == CARLA_RPC_SIMULATE_PHYSICS) {
              /* The named views refuse a request of another kind. */
              struct carla_physics_control p;
              struct carla_ackermann_control a;
              struct carla_ackermann_settings g;
              printf("OTHER KIND %d %d %d NULL %d %d %d\n",
                     carla_rpc_request_physics_control(&req, &p),
                     carla_rpc_request_ackermann_control(&req, &a),
                     carla_rpc_request_ackermann_settings(&req, &g),
                     carla_rpc_request_physics_control(NULL, &p),
                     carla_rpc_request_ackermann_control(&req, NULL),
                     carla_rpc_request_ackermann_settings(NULL, NULL));
            }
            fflush(stdout);
          }
          if (req.expects_answer) { /* LOAD_EPISODE: not here */
            check(carla_rpc_answer(server, req.request_id, 0, "not supported by the test host"),
                  "answer");
          }
          break;
      }
    }
    if (!sync && now_seconds() >= next) {
      step = 1;
      next += 0.02;
    }
    if (step) {
      struct carla_actor_state states[MAX_ACTORS];
      struct carla_episode_frame header;
      uint32_t n = 0;
      int i;
      double dt = settings.has_fixed_delta ? settings.fixed_delta_seconds : 0.02;
      ++frame;
      elapsed += dt;
      for (i = 0; i < actor_count; ++i) {
        if (actors[i].sensor != 0) capture(server, &actors[i], frame, elapsed, dt);
      }
      memset(states, 0, sizeof states);
      for (i = 0; i < actor_count; ++i) {
        if (!actors[i].vehicle) continue;
        states[n].id = actors[i].id;
        states[n].kind = CARLA_ACTOR_VEHICLE;
        states[n].transform = actors[i].transform;
        states[n].velocity.y = 1.0f;
        ++n;
      }
      header.frame = frame;
      header.elapsed_seconds = elapsed;
      header.delta_seconds = dt;
      header.platform_seconds = now_seconds() - started;
      check(carla_rpc_send_episode_state(server, &header, states, n), "state");
      if (tick) check(carla_rpc_answer(server, req.request_id, frame, NULL), "tick");
    }
  }
  pthread_join(watcher, NULL);
  carla_free_server(server);
  return 0;
}
