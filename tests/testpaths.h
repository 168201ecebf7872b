#pragma once
// Where this build put things, for the tests. They are compiled into one
// small generated file (tests/CMakeLists.txt) instead of every test's
// compiler flags, so that a compiler cache shared by two checkouts in
// different folders serves every test's object file.
namespace hwl::test {

extern const char* const kSourceDir;        ///< the source tree's root
extern const char* const kAppBinary;        ///< the hogwild-lab executable
extern const char* const kEngineBinary;     ///< the hogwild-lab-engine executable
extern const char* const kCpuModules;       ///< the CPU kernel modules built: "x86-64-v3,..."
extern const bool kNativeBuild;             ///< HWL_NATIVE: built for this machine
extern const char* const kPublicHeaderList; ///< HWL_PUBLIC_HEADERS, comma-separated
extern const char* const kEngineObjects;    ///< the engine's object files, '|'-separated

} // namespace hwl::test
