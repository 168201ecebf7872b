// A portable build's engine targets x86-64-v2 (SSE4.2 and POPCNT): on an
// older processor its first such instruction would kill it with SIGILL and
// no word of why. This check runs before any other initialiser of the
// program (constructor priority 101), is compiled for the first x86-64
// (util/CMakeLists.txt) and calls nothing built for more, and says it in one
// line instead. HWL_CPU_MAX_LEVEL=1 pretends to be such a processor (tests).
#include <cpuid.h>
#include <cstdlib>
#include <unistd.h>

extern "C" __attribute__((constructor(101), used)) void hwl_cpu_baseline_check() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool v2 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE3) && (c & bit_SSSE3) &&
                    (c & bit_SSE4_1) && (c & bit_SSE4_2) && (c & bit_POPCNT) &&
                    (c & bit_CMPXCHG16B);
    const char* cap = std::getenv("HWL_CPU_MAX_LEVEL");
    const bool pretendOld = cap && cap[0] == '1' && cap[1] == '\0';
    if (v2 && !pretendOld)
        return;
    static const char message[] =
        "error: this processor lacks SSE4.2 and POPCNT (x86-64-v2), which this build of "
        "Hogwild Lab needs; build it from source on this machine (bash .ci/start, "
        "docs/install.md)\n";
    (void)!write(2, message, sizeof message - 1);
    _exit(2);
}
