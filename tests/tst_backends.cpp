// Every backend this build has against the CPU reference (ggml's
// test-backend-ops style): on the same parameters and batches, each
// backend's step kernel must give the reference's loss and gradient (the
// double-precision CPU kernel), its SGD update the reference update, and its
// evaluation the reference loss and accuracy, within a normalised error
// bound. A backend added later (CUDA) is checked by registering it in
// backends(); on a machine where it cannot run it reports SKIP, never a pass.
#include "backend/backend.h"
#include "backend/cpu/modelkernel.h"
#include "data/datasources.h"
#include "model/model.h"

#include "testutil.h"

#include <QTest>

#include <cmath>
#include <numeric>

using namespace hwl;
using namespace hwl::test;

namespace {

/// A gradient scattered into the flat buffer (segments may repeat offsets).
template <class T>
std::vector<double> dense(const Gradient<T>& g, std::int64_t total) {
    std::vector<double> out(std::size_t(total), 0.0);
    for (const auto& seg : g.segments)
        for (std::int64_t i = 0; i < seg.length; ++i)
            out[std::size_t(seg.offset + i)] += double(g.values[std::size_t(seg.valueIndex + i)]);
    return out;
}

struct Case {
    std::unique_ptr<Model> model;
    Dataset data;
};

Case makeCase(const QString& name) {
    if (name == "mlp relu")
        return {makeModel(parseModelSpec("mlp:20-32-16-5")), makeTeacher(256, 20, 5, 8, 3)};
    if (name == "mlp tanh")
        return {makeModel(parseModelSpec("mlp:20-32-5:tanh")), makeTeacher(256, 20, 5, 8, 4)};
    if (name == "mlp sigmoid")
        return {makeModel(parseModelSpec("mlp:20-32-5:sigmoid")), makeTeacher(256, 20, 5, 8, 5)};
    if (name == "logistic regression")
        return {makeModel(parseModelSpec("mlp:20-5")), makeTeacher(256, 20, 5, 8, 6)};
    if (name == "mlp on sparse rows")
        return {makeModel(parseModelSpec("mlp:200-16-4")), makeSparseBow(256, 200, 4, 10, 7)};
    return {makeModel(parseModelSpec("embedding-bag:300-8-4")), makeSparseBow(256, 300, 4, 10, 8)};
}

constexpr double kBound = 1e-5; // float against double, normalised

} // namespace

class TestBackends : public QObject {
    Q_OBJECT

private slots:
    void againstTheReference_data() {
        QTest::addColumn<int>("backend");
        QTest::addColumn<QString>("model");
        const auto all = backends();
        for (std::size_t b = 0; b < all.size(); ++b)
            for (const char* m : {"mlp relu", "mlp tanh", "mlp sigmoid", "logistic regression",
                                  "mlp on sparse rows", "embedding bag"})
                QTest::newRow(qPrintable(QStringLiteral("%1: %2").arg(all[b]->name(), m)))
                    << int(b) << QString::fromLatin1(m);
    }

    void againstTheReference() {
        QFETCH(int, backend);
        QFETCH(QString, model);
        const Backend& be = *backends()[std::size_t(backend)];
        const Case c = makeCase(model);
        const DatasetView data = c.data.view();
        const std::int64_t total = c.model->layout().total();
        std::vector<float> params(static_cast<std::size_t>(total), 0.0f);
        c.model->initialize(params.data(), 11);
        const std::vector<double> paramsD(params.begin(), params.end());
        const auto reference = makeModelKernel(*c.model);
        const SgdSettings sgd{0.1f, 0.9f, 0.01f};
        auto kernel = be.makeKernel(*c.model, data, sgd, 0, 1);

        std::vector<std::int64_t> rows(32);
        for (int batch = 0; batch < 3; ++batch) {
            std::iota(rows.begin(), rows.end(), std::int64_t(batch * 37));
            Workspace<double> ws;
            const double want =
                reference->lossAndGradient(paramsD.data(), data, rows.data(), 32, ws);
            const float got = kernel->lossAndGradient(params.data(), rows.data(), 32);
            QVERIFY2(std::abs(double(got) - want) <= kBound * std::max(1.0, std::abs(want)),
                     qPrintable(QStringLiteral("loss %1 vs %2").arg(got).arg(want)));
            const double err =
                normalisedError(dense(kernel->gradient(), total), dense(ws.grad, total));
            QVERIFY2(err < kBound, qPrintable(QStringLiteral("gradient error %1").arg(err)));
        }
        // The update: the reference rule in double from the same gradient
        // (the first step of momentum: v = g + wd p; p -= lr v).
        const std::vector<double> g = dense(kernel->gradient(), total);
        std::vector<double> expected(paramsD);
        std::vector<bool> touched(std::size_t(total), false);
        for (const auto& seg : kernel->gradient().segments)
            for (std::int64_t i = 0; i < seg.length; ++i)
                touched[std::size_t(seg.offset + i)] = true;
        for (std::size_t i = 0; i < expected.size(); ++i)
            if (touched[i])
                expected[i] -= double(sgd.lr) * (g[i] + double(sgd.weightDecay) * paramsD[i]);
        kernel->update(params.data(), UpdateAccess::Private);
        const std::vector<double> after(params.begin(), params.end());
        QVERIFY2(normalisedError(after, expected) < kBound, "update differs from the rule");
        for (std::size_t i = 0; i < after.size(); ++i)
            if (!touched[i])
                QCOMPARE(after[i], paramsD[i]); // only what the gradient touches changes

        // Evaluation over every row: the reference mean loss and accuracy.
        const EvalResult eval = be.evaluate(*c.model, params.data(), data);
        QCOMPARE(eval.count, data.rows);
        std::vector<std::int64_t> all(std::size_t(data.rows));
        std::iota(all.begin(), all.end(), std::int64_t(0));
        const std::vector<double> now(params.begin(), params.end());
        Workspace<double> ws;
        const double meanLoss =
            reference->lossAndGradient(now.data(), data, all.data(), data.rows, ws);
        QVERIFY2(std::abs(eval.meanLoss() - meanLoss) <= kBound * std::max(1.0, meanLoss),
                 qPrintable(QStringLiteral("%1 vs %2").arg(eval.meanLoss()).arg(meanLoss)));
        QVERIFY(eval.correct >= 0 && eval.correct <= eval.count);
    }

    // The CPU backend is in every build; its name is what --device will take.
    void cpuIsFirst() {
        QVERIFY(!backends().empty());
        QCOMPARE(QString::fromLatin1(backends().front()->name()), QString("cpu"));
        QCOMPARE(backends().front(), &cpuBackend());
    }
};

QTEST_GUILESS_MAIN(TestBackends)
#include "tst_backends.moc"
