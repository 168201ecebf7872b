#pragma once
// Persistence points: every step that makes a run's files durable (a file
// made, a piece written, an fsync, a rename, a folder made or removed) goes
// through point(), so that the crash tests can stop the program at each of
// them in turn and check what a crash there leaves (docs/tests.md).
//
// Three environment variables, read once, drive it; a user never sets them:
//   HWL_TEST_CRASH_AT=K   the K-th point kills this process (SIGKILL) just
//                         before its step is made;
//   HWL_TEST_FAIL_AT=K    the K-th point's step fails with ENOSPC instead;
//   HWL_TEST_TRACE_PERSISTENCE=1   every point is listed on stderr as
//                         "persistence point K: WHAT".
// Unset (the normal case) point() is one relaxed counter increment.

namespace hwl::persistence {

/// Marks the step about to be made (`what`: "write", "fsync", "rename", ...).
/// Returns 0 to go on, or the errno the step must fail with.
int point(const char* what);

/// How many points this process has passed.
long long count();

} // namespace hwl::persistence
