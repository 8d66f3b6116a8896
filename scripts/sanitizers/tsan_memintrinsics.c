/* Linked into the test hosts by scripts/sanitize.sh in thread mode.
 *
 * rustc's LLVM (17 and later) turns the library's memcpy/memmove/memset
 * into calls to __tsan_memcpy/__tsan_memmove/__tsan_memset. The TSan
 * runtimes of Debian 12's gcc 12 and clang 14, which the hosts are linked
 * with, predate those entry points. Older LLVM emitted plain memcpy calls
 * instead, which the runtime intercepts (checking both ranges for races);
 * these forwarders do just that. They are weak, so a runtime that has the
 * entry points keeps its own. Compiled without -fsanitize and with
 * -fno-builtin, so each stays a call to the intercepted libc function. */
#include <string.h>

#define WEAK __attribute__((weak))

WEAK void *__tsan_memcpy(void *dst, const void *src, size_t n) {
  return memcpy(dst, src, n);
}

WEAK void *__tsan_memmove(void *dst, const void *src, size_t n) {
  return memmove(dst, src, n);
}

WEAK void *__tsan_memset(void *dst, int c, size_t n) {
  return memset(dst, c, n);
}
