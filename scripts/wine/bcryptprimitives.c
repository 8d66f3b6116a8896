/* A stand-in for Windows 10's bcryptprimitives.dll, for Wine 8 (Debian 12),
 * which lacks it. Rust's standard library (1.78+) imports ProcessPrng from
 * it for its random seeds (HashMap keys), so no Rust program starts under
 * Wine 8 without it. scripts/test-windows.sh compiles this with mingw-w64
 * into the Wine prefix's system32; it is never shipped with the library
 * (real Windows 10+ has the DLL). RtlGenRandom (advapi32's
 * SystemFunction036) is Wine's and Windows' own random source. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    length -= n;
  }
  return TRUE;
}
