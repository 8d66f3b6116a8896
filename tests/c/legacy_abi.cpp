// A host written against the ORIGINAL 0.8.4 header shape, to prove that
// programs built for the C++ library link against libcarla_server and run.
//
// It does NOT include include/carla/carla_server.h. The declarations below
// are written from the layout table and function list of the 0.8.4 header
// of 0.8.4: a C++-only header with `bool` members, C++ references in
// `extern "C"` functions, `typedef void* CarlaServerPtr` and the four result
// codes as exported data symbols (`extern const int32_t`, not macros).
//
// Usage: legacy_abi PORT FRAMES   (one episode, one camera, no agents)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// ---- the 0.8.4 declarations -------------------------------------------

extern "C" {

typedef void *CarlaServerPtr;

extern const int32_t CARLA_SERVER_SUCCESS;
extern const int32_t CARLA_SERVER_TRY_AGAIN;
extern const int32_t CARLA_SERVER_TIMED_OUT;
extern const int32_t CARLA_SERVER_OPERATION_ABORTED;

#define CARLA_SERVER_CAMERA 101u

struct carla_vector3d { float x, y, z; };
struct carla_rotation3d { float pitch, yaw, roll; };
struct carla_transform {
  carla_vector3d location;
  carla_vector3d orientation;
  carla_rotation3d rotation;
};
struct carla_bounding_box {
  carla_transform transform;
  carla_vector3d extent;
};
struct carla_agent {
  uint32_t id;
  uint32_t type;
  carla_transform transform;
  carla_bounding_box bounding_box;
  float forward_speed;
};
struct carla_sensor_definition {
  uint32_t id;
  uint32_t type;
  const char *name;
};
struct carla_sensor_data {
  uint32_t id;
  const void *header;
  uint32_t header_size;
  const void *data;
  uint32_t data_size;
};
struct carla_request_new_episode {
  const char *ini_file;  // not NUL-terminated in 0.8.4: use the length
  uint32_t ini_file_length;
};
struct carla_scene_description {
  const char *map_name;
  const carla_transform *player_start_spots;
  uint32_t number_of_player_start_spots;
  const carla_sensor_definition *sensors;
  uint32_t number_of_sensors;
};
struct carla_episode_start { uint32_t player_start_spot_index; };
struct carla_episode_ready { bool ready; };
struct carla_control {
  float steer;
  float throttle;
  float brake;
  bool hand_brake;
  bool reverse;
};
struct carla_player_measurements {
  carla_transform transform;
  carla_bounding_box bounding_box;
  carla_vector3d acceleration;
  float forward_speed;
  float collision_vehicles;
  float collision_pedestrians;
  float collision_other;
  float intersection_otherlane;
  float intersection_offroad;
  carla_control autopilot_control;
};
struct carla_measurements {
  uint32_t frame_number;
  uint32_t platform_timestamp;
  uint32_t game_timestamp;
  carla_player_measurements player_measurements;
  const carla_agent *non_player_agents;
  uint32_t number_of_non_player_agents;
};

CarlaServerPtr carla_make_server();
void carla_free_server(CarlaServerPtr self);
int32_t carla_server_connect(CarlaServerPtr self, uint32_t world_port,
                             uint32_t server_timeout_milliseconds);
int32_t carla_server_connect_non_blocking(CarlaServerPtr self, uint32_t world_port,
                                          uint32_t server_timeout_milliseconds);
// Not declared by 0.8.4 but defined by its implementation.
int32_t carla_server_connect_blocking(CarlaServerPtr self, uint32_t world_port,
                                      uint32_t server_timeout_milliseconds);
void carla_disconnect_server(CarlaServerPtr self);
int32_t carla_read_request_new_episode(CarlaServerPtr self, carla_request_new_episode &values,
                                       uint32_t timeout_milliseconds);
int32_t carla_write_scene_description(CarlaServerPtr self, const carla_scene_description &values,
                                      uint32_t timeout_milliseconds);
int32_t carla_read_episode_start(CarlaServerPtr self, carla_episode_start &values,
                                 uint32_t timeout_milliseconds);
int32_t carla_write_episode_ready(CarlaServerPtr self, const carla_episode_ready &values,
                                  const uint32_t timeout_milliseconds);
int32_t carla_read_control(CarlaServerPtr self, carla_control &values,
                           uint32_t timeout_milliseconds);
int32_t carla_write_sensor_data(CarlaServerPtr self, const carla_sensor_data &data);
int32_t carla_write_measurements(CarlaServerPtr self, const carla_measurements &values);

}  // extern "C"

// The 0.8.4 layout table (x86-64 Linux).
static_assert(sizeof(carla_transform) == 36 && sizeof(carla_bounding_box) == 48, "layout");
static_assert(sizeof(carla_agent) == 96 && offsetof(carla_agent, forward_speed) == 92, "layout");
static_assert(sizeof(carla_sensor_definition) == 16 && sizeof(carla_sensor_data) == 40, "layout");
static_assert(sizeof(carla_request_new_episode) == 16, "layout");
static_assert(sizeof(carla_scene_description) == 40, "layout");
static_assert(sizeof(carla_episode_ready) == 1 && sizeof(carla_control) == 16, "layout");
static_assert(sizeof(carla_player_measurements) == 136, "layout");
static_assert(offsetof(carla_player_measurements, autopilot_control) == 120, "layout");
static_assert(sizeof(carla_measurements) == 168, "layout");
static_assert(offsetof(carla_measurements, non_player_agents) == 152, "layout");

// ---- the host ----------------------------------------------------------

namespace {

const uint32_t kCamera = 0xCAFE0001u, kTimeout = 10000;

void check(bool ok, int line, const std::string &what) {
  if (!ok) {
    std::fprintf(stderr, "legacy_abi.cpp:%d: %s\n", line, what.c_str());
    std::exit(1);
  }
}
#define CHECK(cond) check((cond), __LINE__, #cond)
#define EXPECT_CODE(call, want)                                                            \
  do {                                                                                     \
    const int32_t got_ = (call);                                                           \
    check(got_ == (want), __LINE__, std::string(#call) + " returned " + std::to_string(got_)); \
  } while (0)

carla_transform transform(float x, float y, float z, float yaw) {
  carla_transform t = {{x, y, z}, {1.0f, 0.0f, 0.0f}, {0.0f, yaw, 0.0f}};
  return t;
}

void write_frame(CarlaServerPtr s, uint32_t frame) {
  const uint32_t width = 32, height = 24, type = 1;
  const float fov = 90.0f;
  const uint64_t number = uint64_t{1} << 32 | frame;  // episode 0
  unsigned char header[24];
  std::memcpy(header, &number, 8);
  std::memcpy(header + 8, &width, 4);
  std::memcpy(header + 12, &height, 4);
  std::memcpy(header + 16, &type, 4);
  std::memcpy(header + 20, &fov, 4);
  std::vector<unsigned char> pixels(width * height * 4);
  for (uint32_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<unsigned char>(i * 7u + frame * 13u + (kCamera & 0xFFu) * 31u);
  const carla_sensor_data image = {kCamera, header, sizeof header, pixels.data(),
                                   static_cast<uint32_t>(pixels.size())};
  EXPECT_CODE(carla_write_sensor_data(s, image), CARLA_SERVER_SUCCESS);

  const float f = static_cast<float>(frame);
  carla_measurements m;
  std::memset(&m, 0, sizeof m);
  m.frame_number = frame;
  m.platform_timestamp = 1000 + frame;
  m.game_timestamp = 33 * frame;
  carla_player_measurements &p = m.player_measurements;
  p.transform = transform(f, 2.0f * f, 0.25f, 1.5f * f);
  p.bounding_box.transform = transform(0.0f, 0.0f, 0.5f, 0.0f);
  p.bounding_box.extent = {2.5f, 1.0f, 0.8f};
  p.acceleration = {0.1f, 0.0f, -9.75f};
  p.forward_speed = 0.25f * f;
  p.collision_vehicles = f;
  p.collision_pedestrians = 2.0f;
  p.collision_other = 3.0f;
  p.intersection_otherlane = 0.125f;
  p.intersection_offroad = 0.0625f;
  p.autopilot_control = {-0.25f, 0.75f, 0.0f, true, false};
  m.non_player_agents = nullptr;  // 0.8.4 hosts pass NULL with a zero count
  EXPECT_CODE(carla_write_measurements(s, m), CARLA_SERVER_SUCCESS);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PORT FRAMES\n", argv[0]);
    return 2;
  }
  const uint32_t port = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  const uint32_t frames = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));

  // The result codes are read from the library's data symbols at run time.
  CHECK(CARLA_SERVER_SUCCESS == 0);
  CHECK(CARLA_SERVER_TRY_AGAIN == 11);
  CHECK(CARLA_SERVER_TIMED_OUT == 110);
  CHECK(CARLA_SERVER_OPERATION_ABORTED == 125);
  // Both connect variants must link, though only carla_server_connect is used.
  int32_t (*volatile connects[2])(CarlaServerPtr, uint32_t, uint32_t) = {
      &carla_server_connect_non_blocking, &carla_server_connect_blocking};
  CHECK(connects[0] != nullptr && connects[1] != nullptr);

  CarlaServerPtr s = carla_make_server();
  CHECK(s != nullptr);
  carla_control control;
  EXPECT_CODE(carla_read_control(s, control, 0), CARLA_SERVER_OPERATION_ABORTED);
  EXPECT_CODE(carla_server_connect(s, port, kTimeout), CARLA_SERVER_SUCCESS);

  carla_request_new_episode request;
  int32_t code = CARLA_SERVER_TRY_AGAIN;
  for (int tries = 0; tries < 3 && code == CARLA_SERVER_TRY_AGAIN; ++tries)
    code = carla_read_request_new_episode(s, request, kTimeout);
  EXPECT_CODE(code, CARLA_SERVER_SUCCESS);
  const std::string ini(request.ini_file, request.ini_file_length);
  CHECK(ini.find("SynchronousMode=True") != std::string::npos);
  CHECK(ini.find("TestEpisode=0\n") != std::string::npos);

  const carla_transform spot = transform(1.0f, 2.0f, 3.0f, 0.0f);
  const carla_sensor_definition camera = {kCamera, CARLA_SERVER_CAMERA, "Camera/RGB"};
  const carla_scene_description scene = {"TestTown", &spot, 1, &camera, 1};
  EXPECT_CODE(carla_write_scene_description(s, scene, kTimeout), CARLA_SERVER_SUCCESS);
  carla_episode_start start;
  EXPECT_CODE(carla_read_episode_start(s, start, kTimeout), CARLA_SERVER_SUCCESS);
  CHECK(start.player_start_spot_index == 0);
  const carla_episode_ready ready = {true};
  EXPECT_CODE(carla_write_episode_ready(s, ready, kTimeout), CARLA_SERVER_SUCCESS);

  for (uint32_t frame = 0; frame < frames; ++frame) {
    write_frame(s, frame);
    EXPECT_CODE(carla_read_control(s, control, kTimeout), CARLA_SERVER_SUCCESS);
    CHECK(control.steer == -0.5f);
    CHECK(control.throttle == static_cast<float>(frame) / 100.0f);
    CHECK(control.brake == (frame % 4 == 0 ? 0.25f : 0.0f));
    CHECK(control.hand_brake == (frame % 2 == 1));
    CHECK(control.reverse == (frame % 5 == 4));
  }
  std::printf("legacy_abi: %u frames\n", frames);

  // The client leaves; its world session ends with an error code.
  code = CARLA_SERVER_TRY_AGAIN;
  for (int tries = 0; tries < 3 && code == CARLA_SERVER_TRY_AGAIN; ++tries)
    code = carla_read_request_new_episode(s, request, kTimeout);
  CHECK(code != CARLA_SERVER_SUCCESS && code != CARLA_SERVER_TRY_AGAIN);
  carla_disconnect_server(s);
  carla_free_server(s);
  std::printf("legacy_abi: done\n");
  return 0;
}
