// A game/engine host written in C++17 against include/carla/carla_server.h,
// the way UE4 uses the library: the game thread runs the world protocol,
// writes the lidar and the measurements and reads the controls, while a
// separate "render" thread writes the camera images of the same frame.
//
// Usage: host PORT FRAMES
//
// Serves 2 episodes with the same deterministic content as host.c (checked
// by tests/c_api/legacy_hosts.rs). The measurement of frame F is written only after the
// render thread has written frame F's images, so every frame the client
// reads carries that frame's two images and lidar sweep.
#include "carla/carla_server.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

constexpr uint32_t kCamRgb = 0xCAFE0001u, kCamDepth = 0xCAFE0002u, kLidar = 0xCAFE0003u;
constexpr uint32_t kEpisodes = 2, kTimeout = 10000;

static_assert(sizeof(carla_transform) == 36 && sizeof(carla_agent) == 96, "0.8.4 layout");
static_assert(sizeof(carla_control) == 16 && offsetof(carla_control, reverse) == 13, "0.8.4 layout");
static_assert(sizeof(carla_measurements) == 168 && alignof(carla_measurements) == 8, "0.8.4 layout");
static_assert(offsetof(carla_measurements, non_player_agents) == 152, "0.8.4 layout");
static_assert(sizeof(carla_sensor_data) == 40 && offsetof(carla_sensor_data, data_size) == 32,
              "0.8.4 layout");
static_assert(std::is_standard_layout<carla_player_measurements>::value, "plain C struct");

[[noreturn]] void fail(int line, const std::string &what) {
  std::fflush(stdout);
  std::fprintf(stderr, "host.cpp:%d: %s\n", line, what.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

void expect_code(int line, const char *call, int32_t got, int32_t want) {
  if (got != want)
    fail(line, std::string(call) + " returned " + std::to_string(got) + ", expected " +
                   std::to_string(want));
}
#define EXPECT_CODE(call, want) expect_code(__LINE__, #call, (call), (want))
#define EXPECT(cond) \
  if (!(cond)) fail(__LINE__, "check failed: " #cond)

// Owns a server instance; frees it (joining its threads) on scope exit.
class Server {
 public:
  Server() : ptr_(carla_make_server()) {
    if (ptr_ == nullptr) fail(__LINE__, "carla_make_server returned NULL");
  }
  ~Server() { carla_free_server(ptr_); }
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;
  CarlaServerPtr get() const { return ptr_; }

 private:
  CarlaServerPtr ptr_;
};

std::vector<unsigned char> frame_bytes(uint32_t episode, uint32_t frame) {
  uint64_t number = (uint64_t{episode} + 1) << 32 | frame;
  std::vector<unsigned char> bytes(8);
  std::memcpy(bytes.data(), &number, 8);
  return bytes;
}

template <typename T>
void append(std::vector<unsigned char> &out, T value) {
  const auto *p = reinterpret_cast<const unsigned char *>(&value);
  out.insert(out.end(), p, p + sizeof value);
}

int32_t send(CarlaServerPtr s, uint32_t id, const std::vector<unsigned char> &header,
             const std::vector<unsigned char> &data) {
  carla_sensor_data d;
  d.id = id;
  d.header = header.data();
  d.header_size = static_cast<uint32_t>(header.size());
  d.data = data.data();
  d.data_size = static_cast<uint32_t>(data.size());
  return carla_write_sensor_data(s, &d);
}

int32_t write_camera(CarlaServerPtr s, uint32_t id, uint32_t episode, uint32_t frame) {
  const bool rgb = id == kCamRgb;
  const uint32_t width = rgb ? 32 : 16, height = rgb ? 24 : 8, type = rgb ? 1 : 2;
  auto header = frame_bytes(episode, frame);
  append(header, width);
  append(header, height);
  append(header, type);
  append(header, rgb ? 90.0f : 110.5f);
  std::vector<unsigned char> pixels(width * height * 4);
  for (uint32_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<unsigned char>(i * 7u + frame * 13u + (id & 0xFFu) * 31u + episode * 101u);
  return send(s, id, header, pixels);
}

int32_t write_lidar(CarlaServerPtr s, uint32_t episode, uint32_t frame) {
  const uint32_t counts[2] = {1 + frame % 3, 2 + frame % 2};
  auto header = frame_bytes(episode, frame);
  append(header, static_cast<float>((frame * 18u) % 360u));
  append(header, uint32_t{2});
  append(header, counts[0]);
  append(header, counts[1]);
  std::vector<unsigned char> points;
  for (uint32_t k = 0; k < counts[0] + counts[1]; ++k) {
    append(points, static_cast<float>(frame) + 0.25f * static_cast<float>(k));
    append(points, -static_cast<float>(k));
    append(points, 0.5f + static_cast<float>(episode));
  }
  return send(s, kLidar, header, points);
}

carla_transform transform(float x, float y, float z, float yaw) {
  carla_transform t{};
  t.location = {x, y, z};
  t.orientation = {1.0f, 0.0f, 0.0f};
  t.rotation.yaw = yaw;
  return t;
}

int32_t write_measurements(CarlaServerPtr s, uint32_t episode, uint32_t frame) {
  const uint32_t kinds[3] = {CARLA_SERVER_AGENT_VEHICLE, CARLA_SERVER_AGENT_PEDESTRIAN,
                             CARLA_SERVER_AGENT_TRAFFICLIGHT_RED};
  const float f = static_cast<float>(frame);
  carla_agent agents[3] = {};
  for (uint32_t k = 0; k < 3; ++k) {
    const float fk = static_cast<float>(k);
    agents[k].id = 100 * (k + 1) + episode;
    agents[k].type = kinds[k];
    agents[k].transform = transform(static_cast<float>(frame + k), 10.0f * fk, 0.5f, 90.0f * fk);
    agents[k].bounding_box.transform = transform(0.0f, 0.0f, 1.0f, 0.0f);
    agents[k].bounding_box.extent = {2.0f, 1.0f, 0.75f + fk};
    agents[k].forward_speed = 0.5f * f + fk;
  }
  carla_measurements m{};
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
  p.collision_other = 3.0f + static_cast<float>(episode);
  p.intersection_otherlane = 0.125f;
  p.intersection_offroad = 0.0625f;
  p.autopilot_control = {-0.25f, 0.75f, 0.0f, true, false};
  m.non_player_agents = agents;
  m.number_of_non_player_agents = 3;
  return carla_write_measurements(s, &m);
}

// The render thread: writes both camera images of the frame it is asked to
// render, then reports back. One request at a time.
class RenderThread {
 public:
  explicit RenderThread(CarlaServerPtr server) : server_(server), thread_([this] { run(); }) {}
  ~RenderThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  RenderThread(const RenderThread &) = delete;
  RenderThread &operator=(const RenderThread &) = delete;

  void start(uint32_t episode, uint32_t frame) {
    std::lock_guard<std::mutex> lock(mutex_);
    episode_ = episode;
    frame_ = frame;
    pending_ = true;
    cv_.notify_all();
  }

  // Waits until the requested frame's images are written; returns the first
  // non-success code of the two writes.
  int32_t wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return !pending_; });
    return result_;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return pending_ || stop_; });
      if (stop_) return;
      const uint32_t episode = episode_, frame = frame_;
      lock.unlock();
      int32_t result = write_camera(server_, kCamRgb, episode, frame);
      if (result == CARLA_SERVER_SUCCESS) result = write_camera(server_, kCamDepth, episode, frame);
      lock.lock();
      result_ = result;
      pending_ = false;
      cv_.notify_all();
    }
  }

  CarlaServerPtr server_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool pending_ = false, stop_ = false;
  uint32_t episode_ = 0, frame_ = 0;
  int32_t result_ = CARLA_SERVER_SUCCESS;
  std::thread thread_;  // last: starts after the members above exist
};

// The next new-episode request (or the world session's error); the client
// may still be connecting or finishing the previous episode.
int32_t read_request(CarlaServerPtr s, carla_request_new_episode &request) {
  int32_t code = CARLA_SERVER_TRY_AGAIN;
  for (int tries = 0; tries < 3 && code == CARLA_SERVER_TRY_AGAIN; ++tries)
    code = carla_read_request_new_episode(s, &request, kTimeout);
  return code;
}

void run_episode(CarlaServerPtr s, RenderThread &render, uint32_t episode, uint32_t frames) {
  carla_request_new_episode request{};
  EXPECT_CODE(read_request(s, request), CARLA_SERVER_SUCCESS);
  const std::string ini(request.ini_file, request.ini_file_length);
  EXPECT(request.ini_file[request.ini_file_length] == '\0');
  EXPECT(ini.find("SynchronousMode=True") != std::string::npos);
  EXPECT(ini.find("TestEpisode=" + std::to_string(episode) + "\n") != std::string::npos);

  carla_transform spots[2] = {transform(1.0f, 2.0f, 3.0f, 0.0f),
                              transform(11.0f, 12.0f, 13.0f, 45.0f)};
  spots[1].orientation = {0.0f, 1.0f, 0.0f};
  const carla_sensor_definition sensors[3] = {
      {kCamRgb, CARLA_SERVER_CAMERA, "Camera/RGB"},
      {kCamDepth, CARLA_SERVER_CAMERA, "Camera/Depth"},
      {kLidar, CARLA_SERVER_LIDAR_RAY_CAST, "Lidar32"},
  };
  const carla_scene_description scene{"TestTown", spots, 2, sensors, 3};
  EXPECT_CODE(carla_write_scene_description(s, &scene, kTimeout), CARLA_SERVER_SUCCESS);
  carla_episode_start start{};
  EXPECT_CODE(carla_read_episode_start(s, &start, kTimeout), CARLA_SERVER_SUCCESS);
  EXPECT(start.player_start_spot_index == episode);
  const carla_episode_ready ready{true};
  EXPECT_CODE(carla_write_episode_ready(s, &ready, kTimeout), CARLA_SERVER_SUCCESS);

  for (uint32_t frame = 0; frame < frames; ++frame) {
    render.start(episode, frame);                 // cameras on the render thread,
    EXPECT_CODE(write_lidar(s, episode, frame), CARLA_SERVER_SUCCESS);  // lidar here,
    EXPECT_CODE(render.wait(), CARLA_SERVER_SUCCESS);  // then the measurement.
    EXPECT_CODE(write_measurements(s, episode, frame), CARLA_SERVER_SUCCESS);
    carla_control c;
    EXPECT_CODE(carla_read_control(s, &c, kTimeout), CARLA_SERVER_SUCCESS);
    EXPECT(c.steer == (episode == 0 ? -0.5f : 0.5f));
    EXPECT(c.throttle == static_cast<float>(frame) / 100.0f);
    EXPECT(c.brake == (frame % 4 == 0 ? 0.25f : 0.0f));
    EXPECT(c.hand_brake == (frame % 2 == 1));
    EXPECT(c.reverse == (frame % 5 == 4));
  }
  std::printf("host.cpp: episode %u: %u frames\n", episode, frames);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PORT FRAMES\n", argv[0]);
    return 2;
  }
  const auto port = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  const auto frames = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  EXPECT(CARLA_SERVER_SUCCESS == 0 && CARLA_SERVER_TRY_AGAIN == 11);
  {
    Server server;
    EXPECT_CODE(carla_server_set_bind_address(server.get(), "127.0.0.1"), CARLA_SERVER_SUCCESS);
    EXPECT_CODE(carla_server_connect_non_blocking(server.get(), port, kTimeout),
                CARLA_SERVER_SUCCESS);
    std::printf("host.cpp: listening on %u\n", port);
    std::fflush(stdout);
    {
      RenderThread render(server.get());
      for (uint32_t episode = 0; episode < kEpisodes; ++episode)
        run_episode(server.get(), render, episode, frames);
    }  // the render thread is joined before the server is freed

    carla_request_new_episode request{};
    const int32_t code = read_request(server.get(), request);
    if (code == CARLA_SERVER_SUCCESS || code == CARLA_SERVER_TRY_AGAIN)
      fail(__LINE__, "expected the client to leave, got code " + std::to_string(code));
    std::printf("host.cpp: client left (code %d)\n", code);
  }  // ~Server: carla_free_server
  std::printf("host.cpp: done\n");
  return 0;
}
