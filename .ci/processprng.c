/* A stand-in for ProcessPrng from Windows 10's bcryptprimitives.dll, for
 * running the Windows build under wine 8.0 (Debian 12), which lacks it.
 * Rust's standard library asks it for random bytes (HashMap keys). Built
 * and used only by .ci/windows-check; the real Windows has the function. */
#include <windows.h>

/* RtlGenRandom, exported by advapi32 under this name. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
