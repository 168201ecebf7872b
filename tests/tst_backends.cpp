// Every backend this build has against the CPU reference (ggml's
// test-backend-ops style; the checks themselves are in backendcheck.h, which
// the Qt-free GPU test shares): each backend's step kernel must give the
// reference's loss and gradient (the double-precision CPU kernel), its SGD
// update the reference update, and its evaluation the reference loss and
// accuracy. A backend that cannot run here (CUDA without a device, or not
// built) reports SKIP with the reason, never a pass.
#include "backend/backend.h"
#include "util/errors.h"

#include "backendcheck.h"
#include "testutil.h"

#include <QTest>

using namespace hwl;
using namespace hwl::test;

class TestBackends : public QObject {
    Q_OBJECT

private slots:
    void againstTheReference_data() {
        QTest::addColumn<int>("backend");
        QTest::addColumn<QString>("model");
        const auto all = backends();
        for (std::size_t b = 0; b < all.size(); ++b)
            for (const std::string& m : referenceCases())
                QTest::newRow(qPrintable(
                    QStringLiteral("%1: %2").arg(all[b]->name(), QString::fromStdString(m))))
                    << int(b) << QString::fromStdString(m);
    }

    void againstTheReference() {
        QFETCH(int, backend);
        QFETCH(QString, model);
        const Backend& be = *backends()[std::size_t(backend)];
        try {
            const std::string why = checkAgainstReference(be, model.toStdString());
            QVERIFY2(why.empty(), why.c_str());
        } catch (const InputError& e) {
            // A model this backend's step kernel does not train, by design.
            QVERIFY(std::string(be.name()) != "cpu");
            QSKIP(e.what());
        }
    }

    // The CPU backend is in every build; its name is what --device will take.
    void cpuIsFirst() {
        QVERIFY(!backends().empty());
        QCOMPARE(QString::fromLatin1(backends().front()->name()), QString("cpu"));
        QCOMPARE(backends().front(), &cpuBackend());
    }

    // A backend this build knows but cannot run here is named with why, and
    // its comparison is reported skipped rather than passed.
    void deviceBackendsHere() {
        const auto missing = unavailableBackends();
        for (const auto& m : missing) {
            QVERIFY(!m.why.empty());
            for (const Backend* b : backends())
                QVERIFY(m.name != b->name());
        }
        if (!missing.empty())
            QSKIP(qPrintable(QStringLiteral("not compared here: %1: %2")
                                 .arg(QString::fromStdString(missing.front().name),
                                      QString::fromStdString(missing.front().why))));
    }
};

QTEST_GUILESS_MAIN(TestBackends)
#include "tst_backends.moc"
