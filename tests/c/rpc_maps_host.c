/* Maps from C, through include/carla/carla_server.h only:
 * carla_rpc_set_available_maps, CARLA_RPC_LOAD_EPISODE's map_name and
 * CARLA_RPC_LOAD_OPENDRIVE's text and parameters. tests/c_api/rpc_maps.rs
 * builds it and drives it with the Rust RPC client.
 *
 * Usage: rpc_maps_host maps | rpc_maps_host refuse
 *
 * 1. checks the bad arguments of carla_rpc_set_available_maps (NULL
 *    server, not listening, NULL names, a NULL name, an empty name, a name
 *    twice, too many names);
 * 2. binds the streaming and RPC ports on 127.0.0.1; `maps` lists Town01
 *    and Town02 and sets the map Carla/Maps/Town01; `refuse` sets the map
 *    Carla/Maps/Level and lists nothing. Prints `RPC <port> STREAM <port>`;
 * 3. a second thread answers the requests:
 *    - `maps`: LOAD_EPISODE prints `LOAD <map_name> <enabled>`; Town01 and
 *      Town02 are set as the map (Carla/Maps/<name>, the text
 *      `<OpenDRIVE name="<name>"/>`), OpenDriveMap as
 *      Carla/Maps/OpenDriveMap with the text LOAD_OPENDRIVE brought; then
 *      carla_rpc_new_episode and success. LOAD_OPENDRIVE prints
 *      `OPENDRIVE <length> <FNV-1a 64 of the length bytes, hex> <vertex
 *      distance> <max road length> <wall height> <additional width>
 *      <smooth> <visible> <pedestrians>` (numbers with %.17g, switches 0/1),
 *      keeps a copy of the text and succeeds;
 *    - `refuse`: LOAD_EPISODE and LOAD_OPENDRIVE are refused with "this
 *      test host cannot load maps" and print `REFUSED <kind>`;
 *    other requests that expect an answer succeed;
 * 4. stops at the end of stdin, frees the server, prints `DONE`.
 *
 * Any failed check prints `rpc_maps_host.c:<line>: ...` and exits 1. */
#define _POSIX_C_SOURCE 200809L
#define HOST_FILE "rpc_maps_host.c"
#include "carla/carla_server.h"
#include "host_checks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int stop;
static int refuse;
/* The text the last LOAD_OPENDRIVE brought, NUL-terminated. */
static char *built;

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

static unsigned long long fnv1a(const char *bytes, size_t length) {
  unsigned long long h = 0xcbf29ce484222325ULL;
  size_t i;
  for (i = 0; i < length; ++i) {
    h ^= (unsigned char)bytes[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* LOAD_EPISODE in `maps` mode: the error text, or NULL. */
static const char *load_episode(CarlaServerPtr server, const struct carla_rpc_request *req) {
  char line[512];
  CHECK(req->map_name != NULL);
  snprintf(line, sizeof line, "LOAD %s %d\n", req->map_name, req->enabled ? 1 : 0);
  say(line);
  if (strcmp(req->map_name, "Town01") == 0 || strcmp(req->map_name, "Town02") == 0) {
    char name[64], text[128];
    snprintf(name, sizeof name, "Carla/Maps/%s", req->map_name);
    snprintf(text, sizeof text, "<OpenDRIVE name=\"%s\"/>", req->map_name);
    OK(carla_rpc_set_map(server, name, NULL, 0, text));
  } else if (strcmp(req->map_name, "OpenDriveMap") == 0 && built != NULL) {
    OK(carla_rpc_set_map(server, "Carla/Maps/OpenDriveMap", NULL, 0, built));
  } else {
    return "the C host has no such map";
  }
  OK(carla_rpc_new_episode(server, NULL));
  return NULL;
}

/* LOAD_OPENDRIVE in `maps` mode. */
static void load_opendrive(const struct carla_rpc_request *req) {
  char line[512];
  const struct carla_opendrive_parameters *p = &req->opendrive_parameters;
  CHECK(req->opendrive != NULL && req->opendrive_length > 0);
  snprintf(line, sizeof line, "OPENDRIVE %lu %016llx %.17g %.17g %.17g %.17g %d %d %d\n",
           (unsigned long)req->opendrive_length, fnv1a(req->opendrive, req->opendrive_length),
           p->vertex_distance, p->max_road_length, p->wall_height, p->additional_width,
           p->smooth_junctions ? 1 : 0, p->enable_mesh_visibility ? 1 : 0,
           p->enable_pedestrian_navigation ? 1 : 0);
  free(built);
  built = malloc(req->opendrive_length + 1);
  CHECK(built != NULL);
  memcpy(built, req->opendrive, req->opendrive_length);
  built[req->opendrive_length] = '\0';
  say(line);
}

/* The RPC thread: answers every request until `stop`. */
static void *serve_requests(void *arg) {
  CarlaServerPtr server = arg;
  while (!stopping()) {
    struct carla_rpc_request req;
    const char *error = NULL;
    int32_t rc = carla_rpc_poll(server, 20, &req);
    if (rc == CARLA_SERVER_TRY_AGAIN) continue;
    OK(rc);
    if (req.kind == CARLA_RPC_LOAD_EPISODE || req.kind == CARLA_RPC_LOAD_OPENDRIVE) {
      CHECK(req.expects_answer);
      if (refuse) {
        char line[64];
        error = "this test host cannot load maps";
        snprintf(line, sizeof line, "REFUSED %u\n", (unsigned)req.kind);
        say(line);
      } else if (req.kind == CARLA_RPC_LOAD_EPISODE) {
        error = load_episode(server, &req);
      } else {
        load_opendrive(&req);
      }
    }
    if (req.expects_answer) OK(carla_rpc_answer(server, req.request_id, 0, error));
  }
  return NULL;
}

static void check_bad_arguments(CarlaServerPtr server, int listening) {
  static const char *const two[] = {"Town01", "Town02"};
  static const char *const with_null[] = {"Town01", NULL};
  static const char *const twice[] = {"Town01", "town01"};
  static const char *const empty[] = {""};
  EXPECT(carla_rpc_set_available_maps(NULL, two, 2), CARLA_SERVER_NULL_ARGUMENT);
  if (!listening) {
    EXPECT(carla_rpc_set_available_maps(server, two, 2), CARLA_SERVER_INVALID_ARGUMENT);
    return;
  }
  EXPECT(carla_rpc_set_available_maps(server, NULL, 2), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_set_available_maps(server, with_null, 2), CARLA_SERVER_NULL_ARGUMENT);
  EXPECT(carla_rpc_set_available_maps(server, twice, 2), CARLA_SERVER_INVALID_ARGUMENT);
  EXPECT(carla_rpc_set_available_maps(server, empty, 1), CARLA_SERVER_INVALID_ARGUMENT);
  /* More than 4096 names: refused from the count, the array is not read. */
  EXPECT(carla_rpc_set_available_maps(server, two, 4097), CARLA_SERVER_INVALID_ARGUMENT);
}

int main(int argc, char **argv) {
  static const char *const maps[] = {"Town01", "Town02"};
  CarlaServerPtr server = carla_make_server();
  uint32_t port = 0, stream_port = 0;
  pthread_t rpc_thread;
  char line[128];

  if (argc != 2 || (strcmp(argv[1], "maps") != 0 && strcmp(argv[1], "refuse") != 0)) {
    fprintf(stderr, "usage: rpc_maps_host maps|refuse\n");
    return 2;
  }
  refuse = strcmp(argv[1], "refuse") == 0;
  check_bad_arguments(server, 0);
  OK(carla_server_set_bind_address(server, "127.0.0.1"));
  OK(carla_server_listen_streaming(server, 0, &stream_port));
  OK(carla_rpc_listen(server, 0, &port));
  check_bad_arguments(server, 1);
  if (refuse) {
    OK(carla_rpc_set_map(server, "Carla/Maps/Level", NULL, 0, "<OpenDRIVE/>"));
  } else {
    OK(carla_rpc_set_available_maps(server, maps, 2));
    OK(carla_rpc_set_map(server, "Carla/Maps/Town01", NULL, 0, "<OpenDRIVE name=\"Town01\"/>"));
  }
  printf("RPC %u STREAM %u\n", (unsigned)port, (unsigned)stream_port);
  fflush(stdout);

  if (pthread_create(&rpc_thread, NULL, serve_requests, server) != 0) {
    fprintf(stderr, "rpc_maps_host.c: cannot start the RPC thread\n");
    return 1;
  }
  while (fgets(line, sizeof line, stdin) != NULL) {
  }
  pthread_mutex_lock(&lock);
  stop = 1;
  pthread_mutex_unlock(&lock);
  pthread_join(rpc_thread, NULL);
  carla_free_server(server);
  free(built);
  say("DONE\n");
  return 0;
}
