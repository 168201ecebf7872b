#pragma once
// The main() of a GUI test whose window (or form) probes for GPUs: the
// probe runs this program again in the probe role (core/launch/devices.h),
// which must answer it instead of starting the test suite.
#include "run/workerrole.h"

#include <QApplication>
#include <QTest>

#define HWL_GUI_TEST_MAIN(TestClass)                                                               \
    int main(int argc, char** argv) {                                                              \
        if (int code = 0; hwl::runWorkerRoleIfRequested(argc, argv, code))                         \
            return code;                                                                           \
        QApplication app(argc, argv);                                                              \
        TestClass test;                                                                            \
        return QTest::qExec(&test, argc, argv);                                                    \
    }
