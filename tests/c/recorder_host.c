/* The recorder and replayer from C, through include/carla/carla_server.h
 * only (tests/c_api/recorder.rs builds and runs it; argv[1] is a fresh
 * folder):
 *
 * 1. bad arguments: NULL pointers, a name leaving the folder, a stop with
 *    nothing recording, an unknown query kind, before and after listening;
 * 2. a host car (actor 500, blueprint vehicle.test.box) drives 1 m per
 *    tick for 10 episode states while recording; a collision with the map
 *    is reported at the 5th; stop: 10 frames;
 * 3. the file's reports: header, frame count, the car's creation and its
 *    collision, the hero letter filter;
 * 4. the replay: CARLA's answer text, then the requests the host gets as
 *    it sends episode states: the traffic held, the car moved to each
 *    recorded x in turn (0..9 m), the traffic let go at the end.
 *
 * Prints OK; any failed check prints `recorder_host.c:<line>: ...` and
 * exits 1. */
#define HOST_FILE "recorder_host.c"
#include "carla/carla_server.h"
#include "host_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct carla_actor_transform at_x(float x) {
  struct carla_actor_transform t;
  memset(&t, 0, sizeof t);
  t.location.x = x;
  t.location.z = 0.5f;
  return t;
}

static void send_state(CarlaServerPtr server, uint64_t frame, float x) {
  struct carla_episode_frame f;
  struct carla_actor_state s;
  memset(&f, 0, sizeof f);
  memset(&s, 0, sizeof s);
  f.frame = frame;
  f.elapsed_seconds = 0.1 * (double)frame;
  f.delta_seconds = 0.1;
  s.id = 500;
  s.kind = CARLA_ACTOR_VEHICLE;
  s.transform = at_x(x);
  OK(carla_rpc_send_episode_state(server, &f, &s, 1));
}

int main(int argc, char **argv) {
  CarlaServerPtr server;
  char path[512], text[8192];
  uint32_t port = 0, needed = 0, state = 9;
  struct carla_recording_summary summary;
  struct carla_recorder_query q;
  const char *keys[] = {"role_name"};
  const char *values[] = {"hero"};
  const uint8_t types[] = {CARLA_RPC_ATTRIBUTE_STRING};
  struct carla_actor_transform start = at_x(0.0f);
  int frame, i, held = 0, released = 0, moves = 0;
  float want_x = 0.0f;

  CHECK(argc == 2);
  server = carla_make_server();
  CHECK(server != NULL);
  /* Not listening yet: refused. */
  EXPECT(carla_rpc_start_recorder(server, "a.log", false, path, sizeof path),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_recorder_state(NULL, &state), CARLA_SERVER_NULL_ARGUMENT);
  OK(carla_server_listen_streaming(server, 0, NULL));
  OK(carla_rpc_listen(server, 0, &port));
  OK(carla_rpc_set_recording_folder(server, argv[1]));
  OK(carla_rpc_add_blueprint(server, "vehicle.test.box", keys, types, values, 1, NULL));
  OK(carla_rpc_add_actor(server, 500, "vehicle.test.box", keys, values, 1, &start));

  EXPECT(carla_rpc_start_recorder(server, NULL, false, path, sizeof path),
         CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_start_recorder(server, "../out.log", false, path, sizeof path),
         CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_stop_recorder(server, &summary), CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_recorder_query(server, "x.log", NULL, text, sizeof text, &needed),
         CARLA_SERVER_NULL_ARGUMENT);
  memset(&q, 0, sizeof q);
  q.kind = 7;
  EXPECT(carla_rpc_recorder_query(server, "x.log", &q, text, sizeof text, &needed),
         CARLA_SERVER_INVALID_ARGUMENT);

  /* Record ten states; a collision with the map at the fifth. */
  OK(carla_rpc_start_recorder(server, "c/run.log", false, path, sizeof path));
  CHECK(strstr(path, "c/run.log") != NULL || strstr(path, "c\\run.log") != NULL);
  OK(carla_rpc_recorder_state(server, &state));
  CHECK(state == 1);
  for (frame = 1; frame <= 10; ++frame) {
    if (frame == 5) OK(carla_rpc_record_collision(server, 500, 0xFFFFFFFFu));
    send_state(server, (uint64_t)frame, (float)(frame - 1));
  }
  OK(carla_rpc_stop_recorder(server, &summary));
  CHECK(summary.frames == 10 && !summary.failed && summary.dropped == 0);

  /* The reports. */
  memset(&q, 0, sizeof q);
  q.kind = CARLA_RECORDER_FILE_INFO;
  OK(carla_rpc_recorder_query(server, "c/run.log", &q, text, sizeof text, &needed));
  CHECK(needed == strlen(text) + 1);
  CHECK(strncmp(text, "Version: 2\nMap: ", 16) == 0);
  CHECK(strstr(text, " Create 500: vehicle.test.box (1) at (0, 0, 50)\n  role_name = hero\n") != NULL);
  CHECK(strstr(text, "Frame 5 at 0.4 seconds\n Collision id 0 between 500 (hero)  with 4294967295\n") != NULL);
  CHECK(strstr(text, "\nFrames: 10\nDuration: 0.9 seconds\n") != NULL);
  /* A buffer too small: cut, NUL-terminated, the whole size reported. */
  OK(carla_rpc_recorder_query(server, "c/run.log", &q, text, 8, &needed));
  CHECK(strcmp(text, "Version") == 0 && needed > 100);
  q.kind = CARLA_RECORDER_COLLISIONS;
  q.type1 = 'h';
  q.type2 = 'o';
  OK(carla_rpc_recorder_query(server, "c/run.log", &q, text, sizeof text, NULL));
  CHECK(strstr(text, "       0   v o     500 vehicle.test.box") != NULL);
  q.type1 = 'w';
  OK(carla_rpc_recorder_query(server, "c/run.log", &q, text, sizeof text, NULL));
  CHECK(strstr(text, "vehicle.test.box") == NULL);
  OK(carla_rpc_recorder_query(server, "missing.log", &q, text, sizeof text, NULL));
  CHECK(strstr(text, "missing.log not found on server\n") != NULL);

  /* The replay: the car is the host's (same id and blueprint): moved. */
  OK(carla_rpc_replay_file(server, "c/run.log", 0.0, 0.0, 0, false, text, sizeof text, NULL));
  CHECK(strstr(text, "Total time recorded: 0.9\nReplaying from 0 s - 0.9 s (0.9 s) at 1.0x\n") != NULL);
  OK(carla_rpc_recorder_state(server, &state));
  CHECK(state == 2);
  for (frame = 11; frame <= 22; ++frame) {
    struct carla_rpc_request req;
    send_state(server, (uint64_t)frame, 100.0f);
    while (carla_rpc_poll(server, 0, &req) == CARLA_SERVER_SUCCESS) {
      if (req.kind == CARLA_RPC_HOLD_TRAFFIC) {
        if (req.enabled) held++;
        else released++;
      } else if (req.kind == CARLA_RPC_ACTOR_TRANSFORM) {
        CHECK(req.actor_id == 500);
        if (req.transform.location.x != want_x) {
          fprintf(stderr, "move %d to x %f, want %f\n", moves, req.transform.location.x, want_x);
          CHECK(0);
        }
        CHECK(req.transform.location.z == 0.5f);
        want_x += 1.0f;
        moves++;
      }
      if (req.expects_answer) OK(carla_rpc_answer(server, req.request_id, 0, NULL));
    }
  }
  CHECK(held == 1 && released == 1 && moves == 10);
  OK(carla_rpc_recorder_state(server, &state));
  CHECK(state == 0);
  for (i = 0; i < 2; ++i) OK(carla_rpc_stop_replayer(server, false));

  carla_free_server(server);
  puts("OK");
  return 0;
}
