// The CUDA kernels' arithmetic (core/cuda/devicemath.h), run on the host:
// the same __host__ __device__ functions the kernels call, checked against
// the CPU backend's double-precision reference on every machine, GPU or not.
// A whole MLP step composed of them in the kernels' order (gather, bias and
// activation, softmax, weight and bias gradients, activation slope) must give
// the reference's loss and gradient within a normalised error of 1e-7 in
// double (1e-5 in float), and their SGD step must equal optim/sgd.h bit for bit;
// the replicas' mean must equal the CPU collectives' (collective/rankmean.h)
// bit for bit, for any number of replicas.
#include "backend/cpu/modelkernel.h"
#include "backend/cpu/softmaxloss.h"
#include "collective/rankmean.h"
#include "cuda/devicemath.h"
#include "data/datasources.h"
#include "model/mlp.h"
#include "optim/sgd.h"

#include "testutil.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <numeric>

using namespace hwl;
using namespace hwl::test;
namespace dm = hwl::devicemath;

namespace {

/// One MLP step as the replica kernels compute it, in T: returns the mean
/// loss and writes the gradient (the flat layout) into grad.
template <class T>
T kernelStep(const Mlp& mlp, const std::vector<T>& p, const DatasetView& data,
             const std::vector<std::int64_t>& rows, std::vector<T>& grad) {
    const int n = int(rows.size());
    const auto& layers = mlp.layers();
    const int act = int(mlp.spec().activation);
    std::vector<std::vector<T>> pre(layers.size()), post(layers.size());
    std::vector<T> x(std::size_t(n * layers[0].in));
    for (int i = 0; i < n; ++i) // gatherKernel
        for (std::int64_t d = 0; d < layers[0].in; ++d)
            x[std::size_t(i * layers[0].in + d)] = T(data.dense[rows[i] * data.dim + d]);
    const std::vector<T>* input = &x;
    for (std::size_t l = 0; l < layers.size(); ++l) { // GEMM + biasActivationKernel
        const auto& L = layers[l];
        pre[l].assign(std::size_t(n * L.out), T(0));
        post[l].assign(pre[l].size(), T(0));
        for (int i = 0; i < n; ++i)
            for (std::int64_t o = 0; o < L.out; ++o) {
                T z = 0;
                for (std::int64_t d = 0; d < L.in; ++d)
                    z += p[std::size_t(L.weight + o * L.in + d)] *
                         (*input)[std::size_t(i * L.in + d)];
                z += p[std::size_t(L.bias + o)];
                pre[l][std::size_t(i * L.out + o)] = z;
                post[l][std::size_t(i * L.out + o)] = dm::activate(act, z);
            }
        input = &post[l];
    }
    const auto classes = layers.back().out;
    std::vector<T> delta(std::size_t(n * classes));
    T loss = 0;
    for (int i = 0; i < n; ++i) // softmaxKernel, replicaLossKernel
        loss += dm::softmaxRow(pre.back().data() + i * classes, int(classes), data.labels[rows[i]],
                               n, delta.data() + i * classes);
    grad.assign(std::size_t(mlp.layout().total()), T(0));
    for (std::size_t l = layers.size(); l-- > 0;) {
        const auto& L = layers[l];
        const std::vector<T>& in = l == 0 ? x : post[l - 1];
        for (std::int64_t o = 0; o < L.out; ++o) { // weight GEMM, biasGradientKernel
            T b = 0;
            for (int i = 0; i < n; ++i) {
                b += delta[std::size_t(i * L.out + o)];
                for (std::int64_t d = 0; d < L.in; ++d)
                    grad[std::size_t(L.weight + o * L.in + d)] +=
                        delta[std::size_t(i * L.out + o)] * in[std::size_t(i * L.in + d)];
            }
            grad[std::size_t(L.bias + o)] = b;
        }
        if (l == 0)
            break;
        std::vector<T> prev(std::size_t(n * L.in), T(0)); // input GEMM, activationBackwardKernel
        for (int i = 0; i < n; ++i)
            for (std::int64_t d = 0; d < L.in; ++d) {
                T s = 0;
                for (std::int64_t o = 0; o < L.out; ++o)
                    s +=
                        delta[std::size_t(i * L.out + o)] * p[std::size_t(L.weight + o * L.in + d)];
                const auto k = std::size_t(i * L.in + d);
                prev[k] = dm::backpropagate(act, s, pre[l - 1][k], post[l - 1][k]);
            }
        delta.swap(prev);
    }
    return loss / T(n);
}

} // namespace

class TestDeviceMath : public QObject {
    Q_OBJECT
private slots:
    void softmaxRowIsTheReference() {
        const std::vector<double> z{0.3, -1.2, 2.5, 0.0, 7.0};
        const std::int32_t labels[] = {2};
        const std::int64_t rows[] = {0};
        std::vector<double> want(5), got(5);
        const double wantLoss = softmaxCrossEntropy(z.data(), 1, 5, labels, rows, want.data());
        const double gotLoss = dm::softmaxRow(z.data(), 5, 2, 1, got.data());
        QVERIFY(std::abs(gotLoss - wantLoss) <= 1e-12);
        QVERIFY(normalisedError(got, want) <= 1e-12);
        // In float (the device's precision) against the double reference.
        std::vector<float> zf(z.begin(), z.end()), gf(5);
        const float lossF = dm::softmaxRow(zf.data(), 5, 2, 1, gf.data());
        QVERIFY(std::abs(double(lossF) - wantLoss) <= 1e-6 * std::max(1.0, wantLoss));
        QVERIFY(normalisedError({gf.begin(), gf.end()}, want) <= 1e-6);
        QVERIFY(dm::correctRow(z.data(), 5, 4));
        QVERIFY(!dm::correctRow(z.data(), 5, 2));
    }

    void activationsAndSlopes() {
        for (int code : {dm::kRelu, dm::kTanh, dm::kSigmoid})
            for (double x : {-2.0, -0.3, 0.4, 1.7}) {
                const double want = code == dm::kRelu   ? std::max(0.0, x)
                                    : code == dm::kTanh ? std::tanh(x)
                                                        : 1 / (1 + std::exp(-x));
                QCOMPARE(dm::activate(code, x), want);
                const double h = 1e-6;
                const double numeric =
                    (dm::activate(code, x + h) - dm::activate(code, x - h)) / (2 * h);
                QVERIFY2(std::abs(dm::activationSlope(code, x, want) - numeric) < 1e-6,
                         qPrintable(QStringLiteral("activation %1 at %2").arg(code).arg(x)));
            }
    }

    void reluPassesNothingBelowZero() {
        // As the CPU kernel: exactly 0 where pre <= 0, even for an infinite delta.
        QCOMPARE(dm::backpropagate(dm::kRelu, double(INFINITY), -1.0, 0.0), 0.0);
        QCOMPARE(dm::backpropagate(dm::kRelu, 2.5, 1.0, 1.0), 2.5);
        QCOMPARE(dm::backpropagate(dm::kTanh, 2.0, 0.5, 0.5), 2.0 * 0.75);
    }

    void sgdElementIsOptimSgd() {
        // Bit for bit the rule every CPU mode applies, with and without
        // momentum and weight decay.
        for (const SgdSettings sgd : {SgdSettings{0.1f, 0.0f, 0.0f}, SgdSettings{0.1f, 0.0f, 0.01f},
                                      SgdSettings{0.05f, 0.9f, 0.001f}}) {
            std::vector<float> p{0.5f, -1.25f, 3.0f}, g{0.1f, -0.2f, 0.7f}, v{0.0f, 0.3f, -0.1f};
            std::vector<float> p2 = p, v2 = v;
            detail::sgdRange(p.data(), g.data(), v.data(), 3, sgd);
            for (std::size_t i = 0; i < 3; ++i)
                dm::sgdElement(p2[i], g[i], v2[i], sgd.lr, sgd.momentum, sgd.weightDecay);
            QCOMPARE(p2, p);
            if (sgd.momentum != 0)
                QCOMPARE(v2, v);
        }
    }

    void mlpStepIsTheReference_data() {
        QTest::addColumn<QString>("spec");
        QTest::newRow("relu") << "mlp:12-16-8-4";
        QTest::newRow("tanh") << "mlp:12-16-4:tanh";
        QTest::newRow("sigmoid") << "mlp:12-10-4:sigmoid";
        QTest::newRow("logistic") << "mlp:12-4";
    }
    void mlpStepIsTheReference() {
        QFETCH(QString, spec);
        const auto model = makeModel(parseModelSpec(spec.toStdString()));
        const auto& mlp = dynamic_cast<const Mlp&>(*model);
        const Dataset data = makeTeacher(64, 12, 4, 8, 3);
        const std::int64_t total = model->layout().total();
        std::vector<float> params(static_cast<std::size_t>(total));
        model->initialize(params.data(), 5);
        const std::vector<double> paramsD(params.begin(), params.end());
        std::vector<std::int64_t> rows(16);
        std::iota(rows.begin(), rows.end(), 7);
        Workspace<double> ws;
        const double want = makeModelKernel(*model)->lossAndGradient(
            paramsD.data(), data.view(), rows.data(), std::int64_t(rows.size()), ws);
        std::vector<double> wantGrad(std::size_t(total), 0.0);
        for (const auto& seg : ws.grad.segments)
            for (std::int64_t i = 0; i < seg.length; ++i)
                wantGrad[std::size_t(seg.offset + i)] +=
                    ws.grad.values[std::size_t(seg.valueIndex + i)];

        std::vector<double> gradD;
        const double gotD = kernelStep(mlp, paramsD, data.view(), rows, gradD);
        QVERIFY(std::abs(gotD - want) <= 1e-7 * std::max(1.0, want));
        QVERIFY2(normalisedError(gradD, wantGrad) <= 1e-7,
                 qPrintable(QString::number(normalisedError(gradD, wantGrad))));
        std::vector<float> gradF;
        const float gotF = kernelStep(mlp, params, data.view(), rows, gradF);
        QVERIFY(std::abs(double(gotF) - want) <= 1e-5 * std::max(1.0, want));
        QVERIFY(normalisedError({gradF.begin(), gradF.end()}, wantGrad) <= 1e-5);
    }

    void replicaMeanIsTheRankMean_data() {
        QTest::addColumn<int>("replicas");
        for (int n : {1, 2, 3, 4, 5, 6, 7, 8})
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }
    void replicaMeanIsTheRankMean() {
        // The GPU's mean of N replicas' gradients and parameters
        // (reduceReplicasKernel, meanOfSumKernel, setToMeanKernel) against
        // hwl::meanInRankOrder, bit for bit: values of mixed magnitudes and
        // signs, whose float sum, or another order, or a product by a
        // rounded 1/N would give other bits.
        QFETCH(int, replicas);
        const auto n = std::uint32_t(replicas);
        constexpr std::int64_t kCount = 4096;
        std::vector<float> values(std::size_t(kCount) * n); // replica r at r * kCount
        std::uint64_t state = 12345;
        auto next = [&state] { // a fixed LCG: the same values on every machine
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return double(state >> 11) / double(1ULL << 53);
        };
        for (float& v : values)
            v = float((next() - 0.5) * std::pow(10.0, 8 * next() - 4));
        std::vector<const float*> inputs(n);
        for (std::uint32_t r = 0; r < n; ++r)
            inputs[r] = values.data() + r * kCount;
        std::vector<float> want(static_cast<std::size_t>(kCount));
        meanInRankOrder(inputs.data(), n, 0, kCount, want.data());
        int floatSumDiffers = 0;
        for (std::int64_t j = 0; j < kCount; ++j) {
            const float got = dm::meanInOrder(values.data() + j, kCount, n);
            QCOMPARE(std::memcmp(&got, &want[std::size_t(j)], sizeof got), 0);
            double sum = 0; // as sumReplicasKernel, then meanOfSum (several GPUs)
            for (std::uint32_t r = 0; r < n; ++r)
                sum += double(inputs[r][j]);
            const float fromSum = dm::meanOfSum(sum, n);
            QCOMPARE(std::memcmp(&fromSum, &want[std::size_t(j)], sizeof fromSum), 0);
            float floatSum = 0; // the old rule: a float sum times float(1/N)
            for (std::uint32_t r = 0; r < n; ++r)
                floatSum += inputs[r][j];
            floatSumDiffers += floatSum * (1.0f / float(n)) != want[std::size_t(j)] ? 1 : 0;
        }
        if (n >= 3) // the test can tell the rules apart
            QVERIFY(floatSumDiffers > 0);
        // Identical replicas: their mean is their value exactly (distance 0).
        const float same[] = {0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f};
        QCOMPARE(dm::meanInOrder(same, 1, n), 0.1f);
        const float zeros[] = {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f};
        QVERIFY(std::signbit(dm::meanInOrder(zeros, 1, n))); // -0.0 stays -0.0, as on the CPU
    }

    void evaluateRowIsTheCpuEvaluation() {
        const float z[] = {0.5f, 3.25f, -1.0f, 3.25f};
        const std::int32_t labels[] = {1};
        EvalResult want;
        accumulateEval(z, 1, 4, labels, 0, want);
        double loss = 0;
        const bool right = dm::evaluateRow(z, 4, 1, loss);
        QCOMPARE(loss, want.lossSum);               // the same double arithmetic
        QCOMPARE(right ? 1 : 0, int(want.correct)); // the first of equal logits wins
        QVERIFY(!dm::evaluateRow(z, 4, 3, loss));
    }

    void bagWeightIsTheMeanOfTheBag() {
        QCOMPARE(dm::bagWeight(2.0, 4), 0.5);
        QCOMPARE(dm::bagWeight(1.0f, 1), 1.0f);
    }

    void lostUpdateDetection() {
        // A racy store that replaced a value other than the one its update
        // was computed from overwrote another block's write.
        QVERIFY(!dm::overwroteAnother(1.5f, 1.5f));
        QVERIFY(dm::overwroteAnother(1.5f, 1.25f));
        QVERIFY(!dm::overwroteAnother(NAN, NAN)); // nothing was lost between two NaNs
    }
};

QTEST_APPLESS_MAIN(TestDeviceMath)
#include "tst_devicemath.moc"
