#pragma once
// The main() of a test whose runs start process workers: spawned workers run
// this program again (/proc/self/exe) in the worker role, which must answer
// instead of starting the test suite; the fork server starts while the
// program is still single-threaded. `AppClass`: QCoreApplication for an
// engine test, QApplication for one with a window.
#include "launch/forkserver.h"
#include "run/workerrole.h"

#include <QTest>

#include <string>

#define HWL_WORKER_TEST_MAIN_WITH(TestClass, AppClass)                                             \
    int main(int argc, char** argv) {                                                              \
        if (int code = 0; hwl::runWorkerRoleIfRequested(argc, argv, code))                         \
            return code;                                                                           \
        if (const std::string why = hwl::startForkServer(); !why.empty())                          \
            qFatal("%s", why.c_str());                                                             \
        AppClass app(argc, argv);                                                                  \
        TestClass test;                                                                            \
        return QTest::qExec(&test, argc, argv);                                                    \
    }

#define HWL_WORKER_TEST_MAIN(TestClass) HWL_WORKER_TEST_MAIN_WITH(TestClass, QCoreApplication)
