// The --model text: parsing, the canonical form, and the spec's fields (the
// messages of bad texts are in tst_experimentconfig's validateReportsField).
#include "config/experimentconfig.h"
#include "model/modelspec.h"
#include "testutil.h"
#include "util/errors.h"

#include <QtTest>

using hwl::ExperimentConfig;
using hwl::InputError;

class TestModelSpec : public QObject {
    Q_OBJECT

private slots:
    void modelSpecRoundTrip_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("logistic") << "mlp:20-4"
                                  << "mlp:20-4";
        QTest::newRow("mlp relu default") << "mlp:784-128-10"
                                          << "mlp:784-128-10";
        QTest::newRow("mlp explicit relu") << "mlp:784-128-10:relu"
                                           << "mlp:784-128-10";
        QTest::newRow("mlp tanh") << "mlp:100-256-64-10:tanh"
                                  << "mlp:100-256-64-10:tanh";
        QTest::newRow("mlp sigmoid") << "mlp:5-3-2:sigmoid"
                                     << "mlp:5-3-2:sigmoid";
        QTest::newRow("embedding-bag") << "embedding-bag:5000-32-4"
                                       << "embedding-bag:5000-32-4";
    }

    void modelSpecRoundTrip() {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        const hwl::ModelSpec spec = hwl::parseModelSpec(text.toStdString());
        QCOMPARE(QString::fromStdString(hwl::toString(spec)), canonical);
        const hwl::ModelSpec again = hwl::parseModelSpec(hwl::toString(spec));
        QCOMPARE(again.kind, spec.kind);
        QCOMPARE(again.layers, spec.layers);
        QCOMPARE(again.activation, spec.activation);
        QCOMPARE(again.vocab, spec.vocab);
        QCOMPARE(again.dim, spec.dim);
        QCOMPARE(again.classes, spec.classes);
    }

    void modelSpecFields() {
        const auto mlp = hwl::parseModelSpec("mlp:100-256-64-10:tanh");
        QCOMPARE(mlp.kind, hwl::ModelSpec::Kind::Mlp);
        QCOMPARE(mlp.layers, (std::vector<std::int64_t>{100, 256, 64, 10}));
        QCOMPARE(mlp.activation, hwl::Activation::Tanh);
        QCOMPARE(mlp.inputWidth(), std::int64_t(100));
        QCOMPARE(mlp.outputWidth(), std::int64_t(10));
        const auto bag = hwl::parseModelSpec("embedding-bag:5000-32-4");
        QCOMPARE(bag.kind, hwl::ModelSpec::Kind::EmbeddingBag);
        QCOMPARE(bag.vocab, std::int64_t(5000));
        QCOMPARE(bag.dim, std::int64_t(32));
        QCOMPARE(bag.classes, std::int64_t(4));
        QCOMPARE(bag.inputWidth(), std::int64_t(5000));
        QCOMPARE(bag.outputWidth(), std::int64_t(4));
        // The config's accessors parse the same text.
        ExperimentConfig c;
        c.model = "embedding-bag:5000-32-4";
        QCOMPARE(c.modelSpec().vocab, std::int64_t(5000));
        c.model = "mlp:1";
        HWL_VERIFY_THROWS(c.modelSpec(), InputError, "model: \"mlp:1\"");
        c.dataset = "nope:1";
        HWL_VERIFY_THROWS(c.datasetSpec(), InputError, "dataset: \"nope:1\"");
    }
};

QTEST_GUILESS_MAIN(TestModelSpec)
#include "tst_modelspec.moc"
