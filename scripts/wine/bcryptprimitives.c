/*
 * A stand-in for bcryptprimitives.dll, for running mindsage.exe under Wine 8.0
 * (Debian 12's), which lacks that DLL. Rust's standard library calls its ProcessPrng
 * for random bytes before main, so without it the exe dies at start (status c0000135).
 *
 * Test harness only, never shipped: every Windows MindSage supports (10 and 11) has
 * the real DLL. scripts/wine-env.sh builds this with mingw-w64 and puts it in the test
 * prefix's system32 only when the prefix has no bcryptprimitives.dll of its own.
 *
 * ProcessPrng fills the buffer from RtlGenRandom (advapi32's SystemFunction036), which
 * Wine implements over the host's random source.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
