/* A game/engine host written in C99 against include/carla/carla_server.h.
 *
 * Usage: host PORT FRAMES
 *
 * Checks the argument validation of every export, the struct layouts of the
 * 0.8.4 table, then serves 2 episodes of FRAMES synchronous frames to the
 * Rust client of tests/c_api/legacy_hosts.rs. Each frame carries two camera images, a
 * lidar sweep and three non-player agents; every value is a function of
 * (episode, frame) that tests/c_api/legacy_hosts.rs recomputes. Exit status 0 only if
 * every call returned what it should and every control was the expected one.
 */
#include "carla/carla_server.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAM_RGB 0xCAFE0001u
#define CAM_DEPTH 0xCAFE0002u
#define LIDAR 0xCAFE0003u
#define EPISODES 2
#define T 10000u

static void fail(int line, const char *what, long got, long want) {
  fprintf(stderr, "host.c:%d: %s: got %ld, expected %ld\n", line, what, got, want);
  exit(1);
}

#define EXPECT(what, got, want)                                   \
  do {                                                            \
    long got_ = (long)(got), want_ = (long)(want);                \
    if (got_ != want_) fail(__LINE__, (what), got_, want_);       \
  } while (0)
#define EXPECT_CODE(call, want) EXPECT(#call, (call), (want))

/* ---- the deterministic frame content (mirrored in tests/c_api/legacy_hosts.rs) ---- */

struct camera {
  uint32_t id, width, height, image_type;
  float fov;
  const char *name;
};
static const struct camera cameras[2] = {
    {CAM_RGB, 32, 24, 1, 90.0f, "Camera/RGB"},
    {CAM_DEPTH, 16, 8, 2, 110.5f, "Camera/Depth"},
};

static uint64_t sensor_frame(uint32_t episode, uint32_t frame) {
  return ((uint64_t)(episode + 1) << 32) | frame;
}

static struct carla_vector3d vec3(float x, float y, float z) {
  struct carla_vector3d v;
  v.x = x;
  v.y = y;
  v.z = z;
  return v;
}

static struct carla_transform transform(float x, float y, float z, float yaw) {
  struct carla_transform t;
  memset(&t, 0, sizeof t);
  t.location = vec3(x, y, z);
  t.orientation = vec3(1.0f, 0.0f, 0.0f);
  t.rotation.yaw = yaw;
  return t;
}

static void write_camera(CarlaServerPtr server, const struct camera *cam, uint32_t episode,
                         uint32_t frame) {
  unsigned char header[24], pixels[32 * 24 * 4];
  uint64_t number = sensor_frame(episode, frame);
  uint32_t i, size = cam->width * cam->height * 4;
  struct carla_sensor_data data;
  memcpy(header, &number, 8);
  memcpy(header + 8, &cam->width, 4);
  memcpy(header + 12, &cam->height, 4);
  memcpy(header + 16, &cam->image_type, 4);
  memcpy(header + 20, &cam->fov, 4);
  for (i = 0; i < size; ++i)
    pixels[i] = (unsigned char)(i * 7u + frame * 13u + (cam->id & 0xFFu) * 31u + episode * 101u);
  data.id = cam->id;
  data.header = header;
  data.header_size = sizeof header;
  data.data = pixels;
  data.data_size = size;
  EXPECT_CODE(carla_write_sensor_data(server, &data), CARLA_SERVER_SUCCESS);
}

static void write_lidar(CarlaServerPtr server, uint32_t episode, uint32_t frame) {
  unsigned char header[16 + 4 * 2];
  float points[3 * 8];
  uint64_t number = sensor_frame(episode, frame);
  float angle = (float)((frame * 18u) % 360u);
  uint32_t channels = 2, counts[2], k, total;
  struct carla_sensor_data data;
  counts[0] = 1 + frame % 3;
  counts[1] = 2 + frame % 2;
  total = counts[0] + counts[1];
  memcpy(header, &number, 8);
  memcpy(header + 8, &angle, 4);
  memcpy(header + 12, &channels, 4);
  memcpy(header + 16, counts, 8);
  for (k = 0; k < total; ++k) {
    points[3 * k] = (float)frame + 0.25f * (float)k;
    points[3 * k + 1] = -(float)k;
    points[3 * k + 2] = 0.5f + (float)episode;
  }
  data.id = LIDAR;
  data.header = header;
  data.header_size = sizeof header;
  data.data = points;
  data.data_size = total * 3 * (uint32_t)sizeof(float);
  EXPECT_CODE(carla_write_sensor_data(server, &data), CARLA_SERVER_SUCCESS);
}

static void write_measurements(CarlaServerPtr server, uint32_t episode, uint32_t frame) {
  static const uint32_t kinds[3] = {CARLA_SERVER_AGENT_VEHICLE, CARLA_SERVER_AGENT_PEDESTRIAN,
                                    CARLA_SERVER_AGENT_TRAFFICLIGHT_RED};
  struct carla_agent agents[3];
  struct carla_measurements m;
  struct carla_player_measurements *p = &m.player_measurements;
  uint32_t k;
  memset(agents, 0, sizeof agents);
  for (k = 0; k < 3; ++k) {
    agents[k].id = 100 * (k + 1) + episode;
    agents[k].type = kinds[k];
    agents[k].transform = transform((float)(frame + k), 10.0f * (float)k, 0.5f, 90.0f * (float)k);
    agents[k].bounding_box.transform = transform(0.0f, 0.0f, 1.0f, 0.0f);
    agents[k].bounding_box.extent = vec3(2.0f, 1.0f, 0.75f + (float)k);
    agents[k].forward_speed = 0.5f * (float)frame + (float)k;
  }
  memset(&m, 0, sizeof m);
  m.frame_number = frame;
  m.platform_timestamp = 1000 + frame;
  m.game_timestamp = 33 * frame;
  p->transform = transform((float)frame, 2.0f * (float)frame, 0.25f, 1.5f * (float)frame);
  p->bounding_box.transform = transform(0.0f, 0.0f, 0.5f, 0.0f);
  p->bounding_box.extent = vec3(2.5f, 1.0f, 0.8f);
  p->acceleration = vec3(0.1f, 0.0f, -9.75f);
  p->forward_speed = 0.25f * (float)frame;
  p->collision_vehicles = (float)frame;
  p->collision_pedestrians = 2.0f;
  p->collision_other = 3.0f + (float)episode;
  p->intersection_otherlane = 0.125f;
  p->intersection_offroad = 0.0625f;
  p->autopilot_control.steer = -0.25f;
  p->autopilot_control.throttle = 0.75f;
  p->autopilot_control.hand_brake = true;
  m.non_player_agents = agents;
  m.number_of_non_player_agents = 3;
  EXPECT_CODE(carla_write_measurements(server, &m), CARLA_SERVER_SUCCESS);
}

/* The control the client sends after reading frame `frame`. */
static void check_control(const struct carla_control *c, uint32_t episode, uint32_t frame) {
  EXPECT("steer encodes the episode", c->steer == (episode == 0 ? -0.5f : 0.5f), 1);
  EXPECT("throttle == frame / 100", c->throttle == (float)frame / 100.0f, 1);
  EXPECT("brake", c->brake == (frame % 4 == 0 ? 0.25f : 0.0f), 1);
  EXPECT("hand_brake", c->hand_brake, frame % 2 == 1);
  EXPECT("reverse", c->reverse, frame % 5 == 4);
}

/* ---- checks that need no client ---- */

struct layout {
  const char *what;
  size_t got, want;
};
#define SIZE(type, want) {"sizeof(struct " #type ")", sizeof(struct type), want}
#define OFF(type, field, want) {#type "." #field, offsetof(struct type, field), want}

static void check_layouts(void) {
  static const struct layout table[] = {
      SIZE(carla_vector3d, 12), SIZE(carla_rotation3d, 12), SIZE(carla_transform, 36),
      OFF(carla_transform, orientation, 12), OFF(carla_transform, rotation, 24),
      SIZE(carla_bounding_box, 48), OFF(carla_bounding_box, extent, 36), SIZE(carla_agent, 96),
      OFF(carla_agent, type, 4), OFF(carla_agent, transform, 8),
      OFF(carla_agent, bounding_box, 44), OFF(carla_agent, forward_speed, 92),
      SIZE(carla_sensor_definition, 16), OFF(carla_sensor_definition, name, 8),
      SIZE(carla_sensor_data, 40), OFF(carla_sensor_data, header, 8),
      OFF(carla_sensor_data, header_size, 16), OFF(carla_sensor_data, data, 24),
      OFF(carla_sensor_data, data_size, 32), SIZE(carla_request_new_episode, 16),
      OFF(carla_request_new_episode, ini_file_length, 8), SIZE(carla_scene_description, 40),
      OFF(carla_scene_description, player_start_spots, 8),
      OFF(carla_scene_description, number_of_player_start_spots, 16),
      OFF(carla_scene_description, sensors, 24),
      OFF(carla_scene_description, number_of_sensors, 32), SIZE(carla_episode_start, 4),
      SIZE(carla_episode_ready, 1), SIZE(carla_control, 16), OFF(carla_control, brake, 8),
      OFF(carla_control, hand_brake, 12), OFF(carla_control, reverse, 13),
      SIZE(carla_player_measurements, 136), OFF(carla_player_measurements, bounding_box, 36),
      OFF(carla_player_measurements, acceleration, 84),
      OFF(carla_player_measurements, forward_speed, 96),
      OFF(carla_player_measurements, collision_vehicles, 100),
      OFF(carla_player_measurements, collision_pedestrians, 104),
      OFF(carla_player_measurements, collision_other, 108),
      OFF(carla_player_measurements, intersection_otherlane, 112),
      OFF(carla_player_measurements, intersection_offroad, 116),
      OFF(carla_player_measurements, autopilot_control, 120), SIZE(carla_measurements, 168),
      OFF(carla_measurements, platform_timestamp, 4), OFF(carla_measurements, game_timestamp, 8),
      OFF(carla_measurements, player_measurements, 12),
      OFF(carla_measurements, non_player_agents, 152),
      OFF(carla_measurements, number_of_non_player_agents, 160),
  };
  size_t i;
  for (i = 0; i < sizeof table / sizeof table[0]; ++i)
    EXPECT(table[i].what, table[i].got, table[i].want);
}

static void check_null_arguments(CarlaServerPtr s) {
  const int32_t null = CARLA_SERVER_NULL_ARGUMENT;
  struct carla_request_new_episode req;
  struct carla_episode_start start;
  struct carla_episode_ready ready = {true};
  struct carla_control control;
  struct carla_sensor_definition sensor = {CAM_RGB, CARLA_SERVER_CAMERA, NULL};
  struct carla_scene_description scene = {NULL, NULL, 0, NULL, 0};
  struct carla_sensor_data data = {CAM_RGB, NULL, 24, NULL, 0};
  struct carla_measurements m;
  memset(&m, 0, sizeof m);

  carla_free_server(NULL); /* must simply return */
  carla_disconnect_server(NULL);
  EXPECT_CODE(carla_server_connect(NULL, 2000, T), null);
  EXPECT_CODE(carla_server_connect_non_blocking(NULL, 2000, T), null);
  EXPECT_CODE(carla_server_connect_blocking(NULL, 2000, T), null);
  EXPECT_CODE(carla_read_request_new_episode(NULL, &req, 0), null);
  EXPECT_CODE(carla_write_scene_description(NULL, &scene, 0), null);
  EXPECT_CODE(carla_read_episode_start(NULL, &start, 0), null);
  EXPECT_CODE(carla_write_episode_ready(NULL, &ready, 0), null);
  EXPECT_CODE(carla_read_control(NULL, &control, 0), null);
  EXPECT_CODE(carla_write_sensor_data(NULL, &data), null);
  EXPECT_CODE(carla_write_measurements(NULL, &m), null);
  EXPECT_CODE(carla_server_set_bind_address(NULL, "127.0.0.1"), null);
  EXPECT_CODE(carla_server_set_max_message_size(NULL, 1024), null);

  EXPECT_CODE(carla_read_request_new_episode(s, NULL, 0), null);
  EXPECT_CODE(carla_write_scene_description(s, NULL, 0), null);
  EXPECT_CODE(carla_read_episode_start(s, NULL, 0), null);
  EXPECT_CODE(carla_write_episode_ready(s, NULL, 0), null);
  EXPECT_CODE(carla_read_control(s, NULL, 0), null);
  EXPECT_CODE(carla_write_sensor_data(s, NULL), null);
  EXPECT_CODE(carla_write_measurements(s, NULL), null);
  EXPECT_CODE(carla_server_set_bind_address(s, NULL), null);
  /* NULL members: map name, sensor name, sensor header, agents array. */
  EXPECT_CODE(carla_write_scene_description(s, &scene, 0), null);
  scene.map_name = "TestTown";
  scene.sensors = &sensor;
  scene.number_of_sensors = 1;
  EXPECT_CODE(carla_write_scene_description(s, &scene, 0), null);
  EXPECT_CODE(carla_write_sensor_data(s, &data), null);
  m.number_of_non_player_agents = 3;
  EXPECT_CODE(carla_write_measurements(s, &m), null);
}

/* ---- the protocol ---- */

static void run_episode(CarlaServerPtr s, uint32_t episode, uint32_t frames) {
  struct carla_request_new_episode req;
  struct carla_transform spots[2];
  struct carla_sensor_definition sensors[3] = {
      {CAM_RGB, CARLA_SERVER_CAMERA, "Camera/RGB"},
      {CAM_DEPTH, CARLA_SERVER_CAMERA, "Camera/Depth"},
      {LIDAR, CARLA_SERVER_LIDAR_RAY_CAST, "Lidar32"},
  };
  struct carla_scene_description scene;
  struct carla_episode_start start;
  struct carla_episode_ready ready = {true};
  struct carla_control control;
  struct carla_sensor_data stranger = {0xDEADBEEFu, NULL, 0, NULL, 0};
  char marker[32];
  uint32_t frame;
  int32_t code;
  int tries = 0;

  do { /* the client may still be connecting */
    code = carla_read_request_new_episode(s, &req, T);
  } while (code == CARLA_SERVER_TRY_AGAIN && ++tries < 3);
  EXPECT_CODE(code, CARLA_SERVER_SUCCESS);
  EXPECT("ini is NUL-terminated", req.ini_file[req.ini_file_length], '\0');
  EXPECT("strlen(ini)", strlen(req.ini_file), req.ini_file_length);
  EXPECT("ini has SynchronousMode=True", strstr(req.ini_file, "SynchronousMode=True") != NULL, 1);
  snprintf(marker, sizeof marker, "TestEpisode=%u\n", (unsigned)episode);
  EXPECT("ini has the episode marker", strstr(req.ini_file, marker) != NULL, 1);
  EXPECT_CODE(carla_read_control(s, &control, 0), CARLA_SERVER_OPERATION_ABORTED);

  spots[0] = transform(1.0f, 2.0f, 3.0f, 0.0f);
  spots[1] = transform(11.0f, 12.0f, 13.0f, 45.0f);
  spots[1].orientation = vec3(0.0f, 1.0f, 0.0f);
  scene.map_name = "TestTown";
  scene.player_start_spots = spots;
  scene.number_of_player_start_spots = 2;
  scene.sensors = sensors;
  scene.number_of_sensors = 3;
  EXPECT_CODE(carla_write_scene_description(s, &scene, T), CARLA_SERVER_SUCCESS);
  EXPECT_CODE(carla_read_episode_start(s, &start, T), CARLA_SERVER_SUCCESS);
  EXPECT("player_start_spot_index", start.player_start_spot_index, episode);
  EXPECT_CODE(carla_write_episode_ready(s, &ready, T), CARLA_SERVER_SUCCESS);
  EXPECT_CODE(carla_write_sensor_data(s, &stranger), CARLA_SERVER_UNKNOWN_SENSOR);

  for (frame = 0; frame < frames; ++frame) {
    /* Sensor data first: it goes out with the next frame the stream sends. */
    write_camera(s, &cameras[0], episode, frame);
    write_camera(s, &cameras[1], episode, frame);
    write_lidar(s, episode, frame);
    write_measurements(s, episode, frame);
    memset(&control, 0xAB, sizeof control);
    EXPECT_CODE(carla_read_control(s, &control, T), CARLA_SERVER_SUCCESS);
    check_control(&control, episode, frame);
  }
  printf("host.c: episode %u: %u frames\n", (unsigned)episode, (unsigned)frames);
}

/* The settings budget: defaults, a refusal naming the limit, a raised limit. */
static void check_settings_budget(void) {
  struct carla_settings_budget budget;
  CarlaSettingsPtr parsed = NULL;
  char error[256];
  char ini[4096];
  size_t len;
  int i;

  EXPECT_CODE(carla_settings_budget_default(&budget), CARLA_SERVER_SUCCESS);
  EXPECT("default max_sensors", budget.max_sensors, 64);
  EXPECT("default max_frame_bytes", budget.max_frame_bytes, 128u << 20);
  len = (size_t)sprintf(ini, "[CARLA/Sensor]\nSensorType=CAMERA\nImageSizeX=64\n"
                             "ImageSizeY=48\nSensors=C0");
  for (i = 1; i < 100; ++i) len += (size_t)sprintf(ini + len, ",C%d", i);
  EXPECT_CODE(carla_settings_parse_within(&budget, NULL, ini, (uint32_t)len, &parsed, error,
                                          sizeof error),
              CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT("parsed == NULL after a refusal", parsed == NULL, 1);
  if (strstr(error, "100 sensors") == NULL || strstr(error, "(max_sensors)") == NULL)
    fail(__LINE__, error, 0, 1);
  /* The plain parser applies the same defaults. */
  EXPECT_CODE(carla_settings_parse(ini, (uint32_t)len, &parsed, NULL, 0),
              CARLA_SERVER_INVALID_ARGUMENT);
  budget.max_sensors = 100;
  EXPECT_CODE(carla_settings_parse_within(&budget, NULL, ini, (uint32_t)len, &parsed, error,
                                          sizeof error),
              CARLA_SERVER_SUCCESS);
  EXPECT("parsed != NULL", parsed != NULL, 1);
  carla_settings_free(parsed);
}

int main(int argc, char **argv) {
  CarlaServerPtr s;
  struct carla_request_new_episode req;
  struct carla_control control;
  struct carla_measurements m;
  uint32_t port, frames, episode;
  int32_t code;
  int tries = 0;

  if (argc != 3) {
    fprintf(stderr, "usage: %s PORT FRAMES\n", argv[0]);
    return 2;
  }
  port = (uint32_t)strtoul(argv[1], NULL, 10);
  frames = (uint32_t)strtoul(argv[2], NULL, 10);

  check_layouts();
  check_settings_budget();
  EXPECT_CODE(carla_server_self_test_panic(), CARLA_SERVER_INTERNAL_PANIC);
  s = carla_make_server();
  EXPECT("carla_make_server() != NULL", s != NULL, 1);
  check_null_arguments(s);
  EXPECT_CODE(carla_server_set_log_callback(NULL, NULL, 0), CARLA_SERVER_INVALID_ARGUMENT);

  /* No agent server yet. */
  memset(&m, 0, sizeof m);
  EXPECT_CODE(carla_read_control(s, &control, 0), CARLA_SERVER_OPERATION_ABORTED);
  EXPECT_CODE(carla_write_measurements(s, &m), CARLA_SERVER_OPERATION_ABORTED);
  EXPECT_CODE(carla_read_request_new_episode(s, &req, 0), CARLA_SERVER_TRY_AGAIN);

  EXPECT_CODE(carla_server_set_bind_address(s, "not an address"), CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT_CODE(carla_server_set_bind_address(s, "127.0.0.1"), CARLA_SERVER_SUCCESS);
  EXPECT_CODE(carla_server_connect(s, port, T), CARLA_SERVER_SUCCESS);
  printf("host.c: listening on %u\n", (unsigned)port);
  fflush(stdout);

  for (episode = 0; episode < EPISODES; ++episode)
    run_episode(s, episode, frames);

  /* The client leaves: its world connection ends with an error code. */
  do {
    code = carla_read_request_new_episode(s, &req, T);
  } while (code == CARLA_SERVER_TRY_AGAIN && ++tries < 3);
  if (code == CARLA_SERVER_SUCCESS || code == CARLA_SERVER_TRY_AGAIN)
    fail(__LINE__, "read_request_new_episode after the last episode", code, 2);
  printf("host.c: client left (code %d)\n", (int)code);
  carla_free_server(s);
  printf("host.c: done\n");
  return 0;
}
