/* A host's walker skeletons from C, through include/carla/carla_server.h
 * only. tests/c_api/rpc_bones.rs builds it and drives it with the Rust RPC
 * client.
 *
 * 1. checks carla_rpc_set_walker_bones and carla_rpc_request_bone with bad
 *    arguments before the RPC port listens (NULL server, request or output;
 *    not listening), and the size of struct carla_bone_transform;
 * 2. binds the streaming and RPC ports on 127.0.0.1, adds the blueprints
 *    walker.test.person and vehicle.test.box and the host actors 600 and
 *    601 (walkers) and 500 (a vehicle); prints `RPC <port>`;
 * 3. a second thread answers the RPC requests:
 *    - CARLA_RPC_WALKER_BONES of 600: bad reports first (more than
 *      CARLA_MAX_BONES, NULL bones, a name without NUL, an empty name, a
 *      NaN, a vehicle, an unknown id), then two bones, `crl_root` and
 *      `crl_hips__C` (see `report`), and a success; prints `BONES <actor>`
 *      and the codes of the bad reports;
 *    - CARLA_RPC_WALKER_BONES of 601: a success without a report; prints
 *      `NOBONES <actor>`;
 *    - CARLA_RPC_SET_WALKER_BONES: prints `SET <actor> <count>` and, per
 *      bone, ` <name> <x> <y> <z> <pitch> <yaw> <roll>` of its relative
 *      transform (read with carla_rpc_request_bone, checked equal to
 *      `bones[i]`, world and component zero), then ` | <code of index
 *      count> <code of a NULL output>`;
 *    - CARLA_RPC_BLEND_WALKER_POSE: `BLEND <actor> <scalar> <code of
 *      carla_rpc_request_bone on it>`;
 *    - CARLA_RPC_WALKER_POSE_FROM_ANIMATION: `POSE <actor>`;
 *    other requests are answered with a success when they expect one;
 * 4. at the end of stdin: stops, frees the server, prints `DONE`.
 *
 * Any failed check prints `rpc_bones_host.c:<line>: ...` and exits 1. */
#define _POSIX_C_SOURCE 200809L
#define HOST_FILE "rpc_bones_host.c"
#include "carla/carla_server.h"
#include "host_checks.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static struct carla_actor_transform pose(float x, float y, float z, float pitch, float yaw,
                                         float roll) {
  struct carla_actor_transform t;
  memset(&t, 0, sizeof t);
  t.location.x = x;
  t.location.y = y;
  t.location.z = z;
  t.rotation.pitch = pitch;
  t.rotation.yaw = yaw;
  t.rotation.roll = roll;
  return t;
}

static struct carla_bone_transform bone(const char *name, float k) {
  struct carla_bone_transform b;
  size_t n = strlen(name);
  memset(&b, 0, sizeof b);
  if (n >= sizeof b.name) n = sizeof b.name - 1;
  memcpy(b.name, name, n);
  b.world = pose(10.0f * k, 20.0f, 1.0f, 0.0f, 90.0f, 0.0f);
  b.component = pose(0.0f, 0.0f, k, 0.0f, 0.0f, 0.0f);
  b.relative = pose(0.0f, 0.0f, 0.5f * k, -90.0f, 0.0f, 90.0f);
  return b;
}

/* CARLA_RPC_WALKER_BONES of walker 600: bad reports, then the good one. */
static void report(CarlaServerPtr server, const struct carla_rpc_request *req, char *line,
                   size_t size) {
  struct carla_bone_transform bones[2];
  int32_t too_many, null_bones, no_nul, empty, nan, vehicle, unknown;
  bones[0] = bone("crl_root", 1.0f);
  bones[1] = bone("crl_hips__C", 2.0f);
  /* Refused before any bone is read: one bone behind a count of 257. */
  too_many = carla_rpc_set_walker_bones(server, req->actor_id, bones, CARLA_MAX_BONES + 1);
  null_bones = carla_rpc_set_walker_bones(server, req->actor_id, NULL, 2);
  memset(bones[1].name, 'x', sizeof bones[1].name);
  no_nul = carla_rpc_set_walker_bones(server, req->actor_id, bones, 2);
  memset(bones[1].name, 0, sizeof bones[1].name);
  empty = carla_rpc_set_walker_bones(server, req->actor_id, bones, 2);
  bones[1] = bone("crl_hips__C", 2.0f);
  bones[1].component.rotation.roll = NAN;
  nan = carla_rpc_set_walker_bones(server, req->actor_id, bones, 2);
  bones[1] = bone("crl_hips__C", 2.0f);
  vehicle = carla_rpc_set_walker_bones(server, 500, bones, 2);
  unknown = carla_rpc_set_walker_bones(server, 9999, bones, 2);
  OK(carla_rpc_set_walker_bones(server, req->actor_id, bones, 2));
  OK(carla_rpc_answer(server, req->request_id, 0, NULL));
  snprintf(line, size, "BONES %u %d %d %d %d %d %d %d\n", (unsigned)req->actor_id,
           (int)too_many, (int)null_bones, (int)no_nul, (int)empty, (int)nan, (int)vehicle,
           (int)unknown);
}

/* CARLA_RPC_SET_WALKER_BONES: the bones as the line to print. */
static void set_bones(const struct carla_rpc_request *req, char *line, size_t size) {
  static const struct carla_actor_transform zero;
  struct carla_bone_transform b;
  size_t used;
  uint32_t i;
  used = (size_t)snprintf(line, size, "SET %u %u", (unsigned)req->actor_id,
                          (unsigned)req->bone_count);
  for (i = 0; i < req->bone_count && used < size; ++i) {
    const struct carla_actor_transform *t = &b.relative;
    OK(carla_rpc_request_bone(req, i, &b));
    CHECK(memcmp(&b, &req->bones[i], sizeof b) == 0);
    CHECK(memchr(b.name, '\0', sizeof b.name) != NULL);
    CHECK(memcmp(&b.world, &zero, sizeof zero) == 0);
    CHECK(memcmp(&b.component, &zero, sizeof zero) == 0);
    used += (size_t)snprintf(line + used, size - used, " %s %g %g %g %g %g %g", b.name,
                             (double)t->location.x, (double)t->location.y,
                             (double)t->location.z, (double)t->rotation.pitch,
                             (double)t->rotation.yaw, (double)t->rotation.roll);
  }
  if (used < size) {
    snprintf(line + used, size - used, " | %d %d\n",
             (int)carla_rpc_request_bone(req, req->bone_count, &b),
             (int)carla_rpc_request_bone(req, 0, NULL));
  }
}

/* The RPC thread: answers every request until `stop`. */
static void *serve_requests(void *arg) {
  CarlaServerPtr server = arg;
  char line[1024];
  while (!stopping()) {
    struct carla_rpc_request req;
    int32_t rc = carla_rpc_poll(server, 20, &req);
    if (rc == CARLA_SERVER_TRY_AGAIN) continue;
    OK(rc);
    line[0] = '\0';
    if (req.kind != CARLA_RPC_SET_WALKER_BONES) CHECK(req.bones == NULL && req.bone_count == 0);
    if (req.kind == CARLA_RPC_WALKER_BONES) {
      CHECK(req.expects_answer);
      if (req.actor_id == 600) {
        report(server, &req, line, sizeof line);
      } else {
        OK(carla_rpc_answer(server, req.request_id, 0, NULL));
        snprintf(line, sizeof line, "NOBONES %u\n", (unsigned)req.actor_id);
      }
    } else if (req.kind == CARLA_RPC_SET_WALKER_BONES) {
      CHECK(!req.expects_answer);
      set_bones(&req, line, sizeof line);
    } else if (req.kind == CARLA_RPC_BLEND_WALKER_POSE) {
      struct carla_bone_transform b;
      CHECK(!req.expects_answer);
      snprintf(line, sizeof line, "BLEND %u %g %d\n", (unsigned)req.actor_id, (double)req.scalar,
               (int)carla_rpc_request_bone(&req, 0, &b));
    } else if (req.kind == CARLA_RPC_WALKER_POSE_FROM_ANIMATION) {
      CHECK(!req.expects_answer);
      snprintf(line, sizeof line, "POSE %u\n", (unsigned)req.actor_id);
    } else if (req.expects_answer) {
      OK(carla_rpc_answer(server, req.request_id, 0, NULL));
    }
    if (line[0] != '\0') say(line);
  }
  return NULL;
}

static void check_bad_arguments(CarlaServerPtr server) {
  struct carla_bone_transform b = bone("crl_root", 1.0f);
  struct carla_rpc_request req;
  memset(&req, 0, sizeof req);
  CHECK(sizeof(struct carla_bone_transform) == 32 + 3 * 24);
  CHECK(CARLA_BONE_NAME_SIZE == 32 && CARLA_MAX_BONES == 256);
  EXPECT(carla_rpc_set_walker_bones(NULL, 600, &b, 1), CARLA_SERVER_NULL_ARGUMENT);
  /* Not listening: no walker to report for. */
  EXPECT(carla_rpc_set_walker_bones(server, 600, &b, 1), CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_request_bone(NULL, 0, &b), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_request_bone(&req, 0, NULL), CARLA_SERVER_NULL_ARGUMENT);
  /* A request of another kind (here: none) carries no bones. */
  EXPECT(carla_rpc_request_bone(&req, 0, &b), CARLA_SERVER_INVALID_ARGUMENT);
  /* The right kind with NULL bones and a count is the caller's NULL. */
  req.kind = CARLA_RPC_SET_WALKER_BONES;
  req.bone_count = 1;
  EXPECT(carla_rpc_request_bone(&req, 0, &b), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_request_bone(&req, 1, &b), CARLA_SERVER_INVALID_ARGUMENT);
}

int main(void) {
  struct carla_actor_box person = {{0.0f, 0.0f, 0.0f}, {0.3f, 0.3f, 0.9f}};
  struct carla_actor_box car = {{0.0f, 0.0f, 0.75f}, {2.0f, 1.0f, 0.75f}};
  struct carla_actor_transform t = pose(10.0f, 20.0f, 1.0f, 0.0f, 90.0f, 0.0f);
  CarlaServerPtr server = carla_make_server();
  uint32_t port = 0, stream_port = 0;
  pthread_t rpc_thread;
  char line[128];

  check_bad_arguments(server);
  OK(carla_server_set_bind_address(server, "127.0.0.1"));
  OK(carla_server_listen_streaming(server, 0, &stream_port));
  OK(carla_rpc_listen(server, 0, &port));
  OK(carla_rpc_add_blueprint(server, "walker.test.person", NULL, NULL, NULL, 0, &person));
  OK(carla_rpc_add_blueprint(server, "vehicle.test.box", NULL, NULL, NULL, 0, &car));
  OK(carla_rpc_add_actor(server, 600, "walker.test.person", NULL, NULL, 0, &t));
  OK(carla_rpc_add_actor(server, 601, "walker.test.person", NULL, NULL, 0, &t));
  OK(carla_rpc_add_actor(server, 500, "vehicle.test.box", NULL, NULL, 0, &t));
  printf("RPC %u\n", (unsigned)port);
  fflush(stdout);

  if (pthread_create(&rpc_thread, NULL, serve_requests, server) != 0) {
    fprintf(stderr, "rpc_bones_host.c: cannot start the RPC thread\n");
    return 1;
  }
  while (fgets(line, sizeof line, stdin) != NULL) {
  }
  pthread_mutex_lock(&lock);
  stop = 1;
  pthread_mutex_unlock(&lock);
  pthread_join(rpc_thread, NULL);
  carla_free_server(server);
  say("DONE\n");
  return 0;
}
