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

#include <stdexcept>

using namespace hwl;
using namespace hwl::test;

namespace {

/// A step kernel that forwards to another, its loss scaled by `lossScale`
/// (1: the same arithmetic; else a fault the comparison must catch).
class ForwardingKernel final : public StepKernel {
public:
    ForwardingKernel(std::unique_ptr<StepKernel> inner, float lossScale)
        : inner_(std::move(inner)), lossScale_(lossScale) {}
    float lossAndGradient(const float* params, const std::int64_t* rows, std::int64_t n) override {
        return lossScale_ * inner_->lossAndGradient(params, rows, n);
    }
    const Gradient<float>& gradient() const override { return inner_->gradient(); }
    void update(float* params, UpdateAccess access) override { inner_->update(params, access); }
    void countedUpdate(float* params, std::uint32_t* versions,
                       hogwild::UpdateTally& tally) override {
        inner_->countedUpdate(params, versions, tally);
    }
    void updateRange(float* params, const float* gradient, std::int64_t offset,
                     std::int64_t length) override {
        inner_->updateRange(params, gradient, offset, length);
    }
    void setLearningRate(float lr) override { inner_->setLearningRate(lr); }
    void setStepCount(std::uint64_t done) override { inner_->setStepCount(done); }
    std::span<float> optimizerState() override { return inner_->optimizerState(); }
    void accumulateGradient() override { inner_->accumulateGradient(); }
    void finishAccumulation(int count) override { inner_->finishAccumulation(count); }
    EvalResult evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                        std::int64_t end) override {
        return inner_->evaluate(params, data, begin, end);
    }

private:
    std::unique_ptr<StepKernel> inner_;
    float lossScale_;
};

/// docs/architecture.md's "Adding a compute backend", walked in this binary: a
/// Backend with its own name whose kernels compute on the CPU.
class RecipeBackend final : public Backend {
public:
    RecipeBackend(const char* name, float lossScale) : name_(name), lossScale_(lossScale) {}
    const char* name() const override { return name_; }
    std::unique_ptr<StepKernel> makeKernel(const Model& model, const DatasetView& train,
                                           const OptimizerSpec& optimizer, std::uint32_t rank,
                                           std::uint32_t workers) const override {
        return std::make_unique<ForwardingKernel>(
            cpuBackend().makeKernel(model, train, optimizer, rank, workers), lossScale_);
    }
    ParameterStore allocate(std::int64_t count, StorePlace place, const std::string& purpose,
                            StoreExtras extras) const override {
        return cpuBackend().allocate(count, place, purpose, extras);
    }
    EvalResult evaluate(const Model& model, const float* params,
                        const DatasetView& data) const override {
        return cpuBackend().evaluate(model, params, data);
    }

private:
    const char* name_;
    float lossScale_;
};

const RecipeBackend kRecipe("recipe", 1.0f);

} // namespace

class TestBackends : public QObject {
    Q_OBJECT

private slots:
    // The recipe's last step: registered, the backend is listed, and every
    // comparison below runs on it too.
    void initTestCase() {
        registerBackend(kRecipe);
        QCOMPARE(backends().back(), static_cast<const Backend*>(&kRecipe));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, registerBackend(kRecipe));
    }

    // The comparison is not one that anything passes: a backend 1% off in
    // its loss fails it, and says where.
    void aFaultyBackendFails() {
        const RecipeBackend faulty("faulty", 1.01f);
        const std::string why = checkAgainstReference(faulty, referenceCases().front());
        QVERIFY2(!why.empty(), "a loss 1% off passed the comparison");
        QVERIFY2(why.find("loss") != std::string::npos, why.c_str());
    }

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
