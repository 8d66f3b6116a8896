/* Checks shared by the C hosts under tests/c. A host defines HOST_FILE (its
 * file name, for messages) and _POSIX_C_SOURCE 200809L (nanosleep) before
 * any include, then includes this after carla/carla_server.h. A failed
 * check prints `<HOST_FILE>:<line>: ...` to stderr and exits 1. */
#ifndef CARLA_TESTS_HOST_CHECKS_H
#define CARLA_TESTS_HOST_CHECKS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline void fail(int line, const char *what) {
  fprintf(stderr, "%s:%d: %s\n", HOST_FILE, line, what);
  fflush(stderr);
  exit(1);
}

static inline void expect_code(int32_t got, int32_t want, const char *call, int line) {
  if (got != want) {
    fprintf(stderr, "%s:%d: %s returned %d, expected %d\n", HOST_FILE, line, call,
            (int)got, (int)want);
    fflush(stderr);
    exit(1);
  }
}

/* `call` must return `want`. */
#define EXPECT(call, want) expect_code((call), (want), #call, __LINE__)
#define OK(call) EXPECT(call, CARLA_SERVER_SUCCESS)
#define CHECK(cond)                           \
  do {                                        \
    if (!(cond))                              \
      fail(__LINE__, "check failed: " #cond); \
  } while (0)

static inline void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

#endif
