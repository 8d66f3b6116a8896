/* The host's side of the 0.9.16 world from C, through
 * include/carla/carla_server.h only: its own actors, new episodes, the
 * client count, and a refused spawn. tests/c_api/rpc_actors.rs builds it and
 * drives it with the Rust RPC client and stdin commands.
 *
 * 1. checks the bad arguments of carla_rpc_add_actor, carla_rpc_remove_actor,
 *    carla_rpc_new_episode, carla_rpc_client_count and
 *    carla_rpc_set_stream_queue (before the RPC port listens, NULL
 *    pointers, bad ids, an unknown blueprint, a depth over 64);
 * 2. binds the streaming and RPC ports, adds the blueprint vehicle.test.box
 *    (role_name "autopilot", color "255,0,0", number_of_wheels 4) and the
 *    host actor 500 made from it with role_name "hero" and color "0,255,0"
 *    at (10, 20, 0.5), yaw 90; prints `RPC <port> STREAM <port>`;
 * 3. a second thread answers the RPC requests: a spawn of
 *    sensor.camera.depth is refused with "refused by the test host: no
 *    depth cameras here", after which it prints
 *    `REFUSED <actor> <sensor> <carla_sensor_type_id's code for the sensor>`;
 *    other spawns succeed (`SPAWNED <actor> <sensor>`), destroys too;
 * 4. the main thread runs one stdin command per line and prints its result:
 *    `count` -> `COUNT <n>`; `remove <id>` -> `REMOVE <code>`;
 *    `new_episode` -> `EPISODE <code> <id>`; `state <frame>` -> `STATE
 *    <code>` (an episode state with no host states: the library reports
 *    every actor it knows); `queue <depth>` -> `QUEUE <code>`
 *    (carla_rpc_set_stream_queue); `images <sensor> <n>` waits up to 10 s
 *    for the sensor's first subscriber, then sends images of frames 1..n
 *    through carla_sensor_acquire_image/commit_image, stopping at the first
 *    failure -> `IMAGES <sent> <code of the failure, or 0>`; end of input:
 *    stops, frees the server, prints `DONE`.
 *
 * Any failed check prints `rpc_actors_host.c:<line>: ...` and exits 1. */
#define _POSIX_C_SOURCE 200809L
#define HOST_FILE "rpc_actors_host.c"
#include "carla/carla_server.h"
#include "host_checks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int stop;

static int stopping(void) {
  int s;
  pthread_mutex_lock(&lock);
  s = stop;
  pthread_mutex_unlock(&lock);
  return s;
}

static void say(const char *line) {
  pthread_mutex_lock(&lock);
  fputs(line, stdout);
  fflush(stdout);
  pthread_mutex_unlock(&lock);
}

static struct carla_actor_transform pose(float x, float y, float z, float yaw) {
  struct carla_actor_transform t;
  memset(&t, 0, sizeof t);
  t.location.x = x;
  t.location.y = y;
  t.location.z = z;
  t.rotation.yaw = yaw;
  return t;
}

/* The RPC thread: answers every request until `stop`. */
static void *serve_requests(void *arg) {
  CarlaServerPtr server = arg;
  char line[128];
  while (!stopping()) {
    struct carla_rpc_request req;
    int32_t rc = carla_rpc_poll(server, 20, &req);
    if (rc == CARLA_SERVER_TRY_AGAIN) continue;
    OK(rc);
    if (req.kind == CARLA_RPC_SPAWN_ACTOR &&
        strcmp(req.blueprint_id, "sensor.camera.depth") == 0) {
      uint32_t type = 0;
      int32_t code;
      OK(carla_rpc_answer(server, req.request_id, 0,
                          "refused by the test host: no depth cameras here"));
      /* Refusing destroyed the library's sensor before the answer returned. */
      code = carla_sensor_type_id(server, req.sensor_id, &type);
      snprintf(line, sizeof line, "REFUSED %u %u %d\n", (unsigned)req.actor_id,
               (unsigned)req.sensor_id, (int)code);
      say(line);
      continue;
    }
    if (req.kind == CARLA_RPC_VEHICLE_TELEMETRY) {
      /* Bad reports are refused; a good one is what the client reads. */
      struct carla_vehicle_telemetry t;
      int32_t too_many, not_finite, not_a_vehicle, null_report;
      memset(&t, 0, sizeof t);
      t.wheel_count = CARLA_TELEMETRY_WHEELS + 1;
      too_many = carla_rpc_set_vehicle_telemetry(server, req.actor_id, &t);
      t.wheel_count = 2;
      t.wheels[1].lat_force = NAN;
      not_finite = carla_rpc_set_vehicle_telemetry(server, req.actor_id, &t);
      t.wheels[1].lat_force = -250.0f;
      not_a_vehicle = carla_rpc_set_vehicle_telemetry(server, 1, &t);
      null_report = carla_rpc_set_vehicle_telemetry(server, req.actor_id, NULL);
      t.speed = 12.5f;
      t.throttle = 0.75f;
      t.engine_rpm = 3100.0f;
      t.gear = 3;
      t.drag = 57.0f;
      t.wheels[0].tire_friction = 3.5f;
      t.wheels[1].tire_load = 3600.0f;
      OK(carla_rpc_set_vehicle_telemetry(server, req.actor_id, &t));
      OK(carla_rpc_answer(server, req.request_id, 0, NULL));
      snprintf(line, sizeof line, "TELEMETRY %u %d %d %d %d\n", (unsigned)req.actor_id,
               (int)too_many, (int)not_finite, (int)not_a_vehicle, (int)null_report);
      say(line);
      continue;
    }
    if (req.expects_answer) OK(carla_rpc_answer(server, req.request_id, 0, NULL));
    if (req.kind == CARLA_RPC_SPAWN_ACTOR) {
      snprintf(line, sizeof line, "SPAWNED %u %u\n", (unsigned)req.actor_id,
               (unsigned)req.sensor_id);
      say(line);
    } else if (req.kind == CARLA_RPC_DESTROY_ACTOR) {
      snprintf(line, sizeof line, "DESTROYED %u\n", (unsigned)req.actor_id);
      say(line);
    }
  }
  return NULL;
}

static void check_bad_arguments(CarlaServerPtr server) {
  static const char *const keys[] = {"role_name"};
  static const char *const values[] = {"hero"};
  struct carla_actor_transform t = pose(0.0f, 0.0f, 0.0f, 0.0f);
  uint32_t count = 99;
  uint64_t episode = 0;
  /* NULL server. */
  EXPECT(carla_rpc_add_actor(NULL, 7, "vehicle.test.box", NULL, NULL, 0, &t),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_remove_actor(NULL, 7), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_new_episode(NULL, &episode), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_client_count(NULL, &count), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_client_count(server, NULL), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_set_stream_queue(NULL, 4), CARLA_SERVER_NULL_ARGUMENT);
  {
    struct carla_client_budget b;
    memset(&b, 0, sizeof b);
    EXPECT(carla_rpc_set_client_budget(NULL, &b), CARLA_SERVER_NULL_ARGUMENT);
    EXPECT(carla_rpc_set_client_budget(server, NULL), CARLA_SERVER_NULL_ARGUMENT);
    EXPECT(carla_rpc_client_budget(server, NULL), CARLA_SERVER_NULL_ARGUMENT);
    EXPECT(carla_rpc_client_budget(server, &b), CARLA_SERVER_INVALID_ARGUMENT);
  }
  {
    static const uint32_t lights[] = {7};
    EXPECT(carla_rpc_set_traffic_light_group(NULL, lights, 1), CARLA_SERVER_NULL_ARGUMENT);
    EXPECT(carla_rpc_set_traffic_light_group(server, lights, 1),
           CARLA_SERVER_INVALID_ARGUMENT); /* not listening */
  }
  /* Not listening: no world to add to; nobody connected. */
  EXPECT(carla_rpc_add_actor(server, 7, "vehicle.test.box", keys, values, 1, &t),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_remove_actor(server, 7), CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_new_episode(server, NULL), CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_set_stream_queue(server, 4), CARLA_SERVER_INVALID_ARGUMENT);
  OK(carla_rpc_client_count(server, &count));
  if (count != 0) {
    fprintf(stderr, "rpc_actors_host.c: %u clients before listening\n", (unsigned)count);
    exit(1);
  }
}

static void check_bad_actors(CarlaServerPtr server) {
  static const char *const keys[] = {"role_name"};
  static const char *const values[] = {"hero"};
  struct carla_actor_transform t = pose(0.0f, 0.0f, 0.0f, 0.0f);
  EXPECT(carla_rpc_add_actor(server, 500, "vehicle.test.box", NULL, NULL, 0, &t),
         CARLA_SERVER_INVALID_ARGUMENT); /* in use */
  EXPECT(carla_rpc_add_actor(server, 0, "vehicle.test.box", NULL, NULL, 0, &t),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_add_actor(server, 501, "vehicle.unknown", NULL, NULL, 0, &t),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_add_actor(server, 501, NULL, NULL, NULL, 0, &t),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_add_actor(server, 501, "vehicle.test.box", NULL, NULL, 0, NULL),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_add_actor(server, 501, "vehicle.test.box", NULL, values, 1, &t),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_add_actor(server, 501, "vehicle.test.box", keys, NULL, 1, &t),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_remove_actor(server, 501), CARLA_SERVER_INVALID_ARGUMENT);
  {
    static const uint32_t not_a_light[] = {500};
    EXPECT(carla_rpc_set_traffic_light_group(server, not_a_light, 1),
           CARLA_SERVER_INVALID_ARGUMENT); /* a vehicle */
    EXPECT(carla_rpc_set_traffic_light_group(server, NULL, 1), CARLA_SERVER_NULL_ARGUMENT);
    OK(carla_rpc_set_traffic_light_group(server, NULL, 0)); /* an empty group */
  }
  EXPECT(carla_rpc_set_stream_queue(server, 65), CARLA_SERVER_INVALID_ARGUMENT);
  OK(carla_rpc_set_stream_queue(server, 64));
  OK(carla_rpc_set_stream_queue(server, 0));
}

/* `images <sensor> <n>` (see the header): the line to print. */
static void send_images(CarlaServerPtr server, uint32_t sensor, unsigned n, char *line,
                        size_t size) {
  uint32_t subscribers = 0;
  unsigned sent = 0, waited = 0;
  int32_t code = CARLA_SERVER_SUCCESS;
  while (subscribers == 0 && waited++ < 1000) {
    OK(carla_sensor_subscriber_count(server, sensor, &subscribers));
    if (subscribers == 0) sleep_ms(10);
  }
  for (sent = 0; sent < n && subscribers != 0; ++sent) {
    CarlaImagePtr image = NULL;
    void *pixels = NULL;
    uint32_t bytes = 0;
    struct carla_capture_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.frame = sent + 1;
    ctx.timestamp = 0.05 * (double)(sent + 1);
    code = carla_sensor_acquire_image(server, sensor, &image, &pixels, &bytes);
    if (code != CARLA_SERVER_SUCCESS) break;
    memset(pixels, (int)(sent & 0xff), bytes);
    code = carla_sensor_commit_image(server, image, &ctx);
    if (code != CARLA_SERVER_SUCCESS) break;
  }
  snprintf(line, size, "IMAGES %u %d\n", sent, (int)code);
}

/* Runs one stdin command (see the header). */
static void command(CarlaServerPtr server, const char *cmd) {
  char line[128];
  unsigned long arg = 0;
  unsigned n = 0;
  if (strcmp(cmd, "count") == 0) {
    uint32_t n = 0;
    OK(carla_rpc_client_count(server, &n));
    snprintf(line, sizeof line, "COUNT %u\n", (unsigned)n);
  } else if (sscanf(cmd, "remove %lu", &arg) == 1) {
    snprintf(line, sizeof line, "REMOVE %d\n",
             (int)carla_rpc_remove_actor(server, (uint32_t)arg));
  } else if (strcmp(cmd, "new_episode") == 0) {
    uint64_t id = 0;
    int32_t code = carla_rpc_new_episode(server, &id);
    snprintf(line, sizeof line, "EPISODE %d %llu\n", (int)code, (unsigned long long)id);
  } else if (sscanf(cmd, "state %lu", &arg) == 1) {
    struct carla_episode_frame frame;
    memset(&frame, 0, sizeof frame);
    frame.frame = arg;
    frame.elapsed_seconds = 0.05 * (double)arg;
    frame.delta_seconds = 0.05;
    snprintf(line, sizeof line, "STATE %d\n",
             (int)carla_rpc_send_episode_state(server, &frame, NULL, 0));
  } else if (sscanf(cmd, "sensors %lu", &arg) == 1) {
    /* Each client's share of sensors; the rest of the budget unchanged. */
    struct carla_client_budget b;
    OK(carla_rpc_client_budget(server, &b));
    b.max_sensors = (uint32_t)arg;
    OK(carla_rpc_set_client_budget(server, &b));
    memset(&b, 0, sizeof b);
    OK(carla_rpc_client_budget(server, &b));
    snprintf(line, sizeof line, "BUDGET %u %u %u %llu %u\n", (unsigned)b.max_sensors,
             (unsigned)b.max_actors, (unsigned)b.max_requests,
             (unsigned long long)b.max_frame_bytes, (unsigned)b.max_connections_per_address);
  } else if (sscanf(cmd, "queue %lu", &arg) == 1) {
    snprintf(line, sizeof line, "QUEUE %d\n",
             (int)carla_rpc_set_stream_queue(server, (uint32_t)arg));
  } else if (sscanf(cmd, "images %lu %u", &arg, &n) == 2) {
    send_images(server, (uint32_t)arg, n, line, sizeof line);
  } else {
    fprintf(stderr, "rpc_actors_host.c: unknown command %s\n", cmd);
    exit(1);
  }
  say(line);
}

int main(void) {
  static const char *const bp_keys[] = {"role_name", "color", "number_of_wheels"};
  static const uint8_t bp_types[] = {CARLA_RPC_ATTRIBUTE_STRING, CARLA_RPC_ATTRIBUTE_RGB,
                                     CARLA_RPC_ATTRIBUTE_INT};
  static const char *const bp_values[] = {"autopilot", "255,0,0", "4"};
  static const char *const keys[] = {"role_name", "color"};
  static const char *const values[] = {"hero", "0,255,0"};
  struct carla_actor_box box = {{0.0f, 0.0f, 0.75f}, {2.0f, 1.0f, 0.75f}};
  struct carla_actor_transform t = pose(10.0f, 20.0f, 0.5f, 90.0f);
  CarlaServerPtr server = carla_make_server();
  uint32_t port = 0, stream_port = 0;
  pthread_t rpc_thread;
  char line[128];

  check_bad_arguments(server);
  OK(carla_server_set_bind_address(server, "127.0.0.1"));
  OK(carla_server_listen_streaming(server, 0, &stream_port));
  OK(carla_rpc_listen(server, 0, &port));
  OK(carla_rpc_add_blueprint(server, "vehicle.test.box", bp_keys, bp_types, bp_values, 3,
                             &box));
  OK(carla_rpc_add_actor(server, 500, "vehicle.test.box", keys, values, 2, &t));
  check_bad_actors(server);
  printf("RPC %u STREAM %u\n", (unsigned)port, (unsigned)stream_port);
  fflush(stdout);

  if (pthread_create(&rpc_thread, NULL, serve_requests, server) != 0) {
    fprintf(stderr, "rpc_actors_host.c: cannot start the RPC thread\n");
    return 1;
  }
  while (fgets(line, sizeof line, stdin) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    command(server, line);
  }
  pthread_mutex_lock(&lock);
  stop = 1;
  pthread_mutex_unlock(&lock);
  pthread_join(rpc_thread, NULL);
  carla_free_server(server);
  say("DONE\n");
  return 0;
}
