/* What a program built with MSVC does with the Windows library: it links
 * against carla_server.dll.lib only (no mingw-w64 runtime, no C runtime at
 * all here), calls two functions and reads one exported constant through
 * the import library. scripts/test-windows.sh compiles it with clang for
 * x86_64-pc-windows-msvc, links it with lld-link (rust-lld) and runs it
 * under Wine; the exit code is CARLA_SERVER_TRY_AGAIN, 11.
 *
 * The constants are DATA exports (see carla_server.def): MSVC code must
 * declare them __declspec(dllimport), as here, or use their values. */
#include "carla/carla_server.h"

__declspec(dllimport) extern const int32_t CARLA_SERVER_TRY_AGAIN;

int start(void) {
  CarlaServerPtr server = carla_make_server();
  if (server == NULL) {
    return 1;
  }
  carla_free_server(server);
  return CARLA_SERVER_TRY_AGAIN;
}
