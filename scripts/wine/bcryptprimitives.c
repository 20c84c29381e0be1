/* A test-only stand-in for Windows' bcryptprimitives.dll, whose ProcessPrng
 * Rust's standard library imports (it seeds HashMap's hasher). Debian's Wine 8
 * has no such DLL, so the Windows build would not start under it; this one,
 * put beside the .exe by scripts/cross-test.sh, answers from RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has. Real Windows has the DLL:
 * never ship this file's build. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG n = length > 0x7fffffff ? 0x7fffffff : (ULONG)length;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        length -= n;
    }
    return TRUE;
}
