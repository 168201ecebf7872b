// The GPU's CNN step, checked on the host (no GPU, in CI): the per-element
// functions the CUDA kernels call (core/cuda/cnnmath.h, devicemath.h,
// util/dropoutdraws.h) and the replica-batched products they launch
// (core/cuda/products.h) are composed here in cnnreplicas.cu's order, with
// cuBLAS's strided-batched product emulated from the same CublasCall, and
// held against the CPU's kernels: each piece against its netops loop (bit
// for bit where the CPU adds in the same order), the dropout masks against
// the CPU kernel's own draws, and a whole step of several replicas against
// NetKernel's loss and gradient. A regression test for the dropout order the
// GPU lost when the CPU began to train a batch in groups of rows: at a batch
// that is not a multiple of the group the old order drew other masks.
#include "backend/cpu/netkernel.h"
#include "backend/cuda/deviceshapes.h"
#include "cuda/cnnmath.h"
#include "cuda/devicemath.h"
#include "cuda/products.h"
#include "data/datasources.h"
#include "model/net.h"
#include "util/dropoutdraws.h"

#include "testutil.h"

#include <QTest>

#include <cstring>
#include <numeric>

using namespace hwl;
using namespace hwl::test;
namespace dm = hwl::devicemath;

namespace {

/// cuBLAS's strided-batched product as its documentation defines it
/// (column-major: element (i, j) of X at X[i + j * ld]), summed in double.
void cublasOnHost(const dm::CublasCall& c, const float* first, std::int64_t strideFirst,
                  const float* second, std::int64_t strideSecond, float* C, std::int64_t strideC,
                  int batch) {
    for (int b = 0; b < batch; ++b) {
        const float* F = first + b * strideFirst;
        const float* S = second + b * strideSecond;
        for (std::int64_t j = 0; j < c.cols; ++j)
            for (std::int64_t i = 0; i < c.rows; ++i) {
                double sum = 0;
                for (std::int64_t l = 0; l < c.depth; ++l) {
                    const float f = c.transFirst ? F[l + i * c.ldFirst] : F[i + l * c.ldFirst];
                    const float s = c.transSecond ? S[j + l * c.ldSecond] : S[l + j * c.ldSecond];
                    sum += double(f) * double(s);
                }
                C[b * strideC + i + j * c.ldc] = float(sum);
            }
    }
}

/// What Replicas::product launches for a product, on the host.
void productOnHost(const dm::BatchedProduct& p, const float* A, const float* B, float* C,
                   int batch) {
    cublasOnHost(dm::cublasCallOf(p), B, p.strideB, A, p.strideA, C, p.strideC, batch);
}

/// The product's own definition, row-major, summed in the same order.
void productByDefinition(const dm::BatchedProduct& p, const float* A, const float* B, float* C,
                         int batch) {
    for (int b = 0; b < batch; ++b)
        for (std::int64_t i = 0; i < p.m; ++i)
            for (std::int64_t j = 0; j < p.n; ++j) {
                double sum = 0;
                for (std::int64_t l = 0; l < p.k; ++l) {
                    const float a =
                        p.transA ? A[b * p.strideA + l * p.m + i] : A[b * p.strideA + i * p.k + l];
                    const float x =
                        p.transB ? B[b * p.strideB + j * p.k + l] : B[b * p.strideB + l * p.n + j];
                    sum += double(a) * double(x);
                }
                C[b * p.strideC + i * p.n + j] = float(sum);
            }
}

/// A float's bits: QCOMPARE of two floats forgives a difference in the last
/// places, and these checks are of the same bits.
std::uint32_t bits(float v) {
    std::uint32_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

std::vector<float> randomValues(std::size_t count, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<float> v(count);
    for (float& x : v)
        x = rng.uniform(-1.0f, 1.0f);
    return v;
}

struct Cnn {
    std::unique_ptr<Model> model;
    const Net* net = nullptr;
    cuda::CnnShape shape;
};
Cnn mnistCnn() {
    Cnn c;
    c.model = makeModel(parseModelSpec("cnn:mnist"));
    c.net = &dynamic_cast<const Net&>(*c.model);
    c.shape = cnnShape(*c.model);
    return c;
}

/// One training step of R replicas on the host, in cnnreplicas.cu's order,
/// of the functions and products the kernels use.
struct HostCnnStep {
    HostCnnStep(const cuda::CnnShape& shape, int replicas, int rows, std::int64_t paramStride)
        : s(shape), R(replicas), n(rows), P(paramStride) {}
    const cuda::CnnShape& s;
    int R, n;
    std::int64_t P;
    std::vector<float> x, p1, z1, a1, p2, z2, a2, h, h1, logits, delta, rowLoss;
    std::vector<float> scale2, scale3, dh, da2, dz2, dp2, da1, dz1;
    std::vector<std::int32_t> y, pick1, pick2;

    /// Bias add of a convolution's output, then the pool with its factors.
    void convBiasPool(std::vector<float>& z, int channels, std::int64_t cols, std::int64_t bias,
                      const float* params, int side, const float* scale, std::vector<float>& out,
                      std::vector<std::int32_t>& pick) {
        for (std::int64_t e = 0; e < std::int64_t(z.size()); ++e)
            z[std::size_t(e)] += params[dm::channelBiasIndex(e, channels, cols, P, bias)];
        const std::int64_t area = std::int64_t(side) * side;
        out.assign(std::size_t(R) * n * channels * (side / 2) * (side / 2), 0.0f);
        pick.assign(out.size(), 0);
        for (std::int64_t e = 0; e < std::int64_t(out.size()); ++e) {
            const dm::PoolWindow w = dm::poolWindow(e, channels, n, side);
            const float* zr = z.data() + w.replica * channels * n * area;
            const std::int64_t best = dm::firstMax2x2(zr, w.corner, side);
            out[std::size_t(e)] =
                dm::reluScaled(zr[best], scale, w.replica * n * channels + w.plane);
            pick[std::size_t(e)] = std::int32_t(best);
        }
    }
    void poolBackward(const std::vector<float>& dout, const std::vector<float>& out,
                      const std::vector<std::int32_t>& pick, int channels, int side,
                      const float* scale, std::vector<float>& dz) {
        const std::int64_t area = std::int64_t(side) * side;
        dz.assign(std::size_t(R) * channels * n * area, 0.0f);
        for (std::int64_t e = 0; e < std::int64_t(out.size()); ++e) {
            if (!(out[std::size_t(e)] > 0.0f))
                continue;
            const dm::PoolWindow w = dm::poolWindow(e, channels, n, side);
            dz[std::size_t(w.replica * channels * n * area + pick[std::size_t(e)])] =
                dm::reluScaledGradient(dout[std::size_t(e)], out[std::size_t(e)], scale,
                                       w.replica * n * channels + w.plane);
        }
    }
    void channelSums(const std::vector<float>& dz, int channels, std::int64_t cols,
                     std::int64_t bias, float* grads) {
        constexpr int kThreads = dm::kChannelSumThreads;
        for (std::int64_t e = 0; e < std::int64_t(R) * channels; ++e) {
            float part[kThreads];
            for (int t = 0; t < kThreads; ++t)
                part[t] = dm::stridedPart(dz.data() + e * cols, cols, t, kThreads);
            for (int half = kThreads / 2; half > 0; half /= 2)
                for (int t = 0; t < kThreads; ++t)
                    dm::treeLevel(part, half, t);
            grads[(e / channels) * P + bias + e % channels] = part[0];
        }
    }

    /// The replicas' mean losses; `grads` gets each replica's gradient.
    std::vector<float> run(const std::vector<float>& params, const DatasetView& data,
                           const std::vector<std::int32_t>& rows, const std::uint64_t* seeds,
                           std::vector<float>& grads) {
        const int k = int(s.kernel), c1 = int(s.conv1), c2 = int(s.conv2);
        const std::int64_t images = std::int64_t(R) * n, dim = data.dim, k2 = k * k;
        const std::int64_t cols1 = n * s.side1() * s.side1(), cols2 = n * s.side2() * s.side2();
        const dm::CnnProducts m = dm::cnnProducts(s, n, P);
        const float* W = params.data();
        x.resize(std::size_t(images * dim));
        y.resize(std::size_t(images));
        for (std::int64_t q = 0; q < images * dim; ++q) { // gatherKernel
            const std::int32_t row = dm::gatheredRow(q, n, dim, rows.data(), n, 0);
            x[std::size_t(q)] = data.dense[row * dim + q % dim];
            if (q % dim == 0)
                y[std::size_t(q / dim)] = data.labels[row];
        }
        scale2.resize(std::size_t(images * c2));
        scale3.resize(std::size_t(images * s.hidden));
        for (int r = 0; r < R; ++r) { // dropoutKernel
            std::uint64_t state[4];
            xoshiro::seed(state, seeds[r]);
            const double p[2] = {s.dropout, s.dropout};
            const std::int64_t width[2] = {c2, s.hidden};
            float* const out[2] = {scale2.data() + r * n * c2, scale3.data() + r * n * s.hidden};
            dropout::drawStep(state, p, 2, width, n, s.dropoutGroup, out);
        }
        p1.resize(std::size_t(images * s.side1() * s.side1() * k2)); // conv1
        for (std::int64_t e = 0; e < std::int64_t(p1.size()); ++e)
            p1[std::size_t(e)] = x[std::size_t(dm::im2colSource(e, 1, int(s.side), k))];
        z1.resize(std::size_t(R * c1 * cols1));
        productOnHost(m.conv1, W + s.conv1Weight, p1.data(), z1.data(), R);
        convBiasPool(z1, c1, cols1, s.conv1Bias, W, int(s.side1()), nullptr, a1, pick1);
        p2.resize(std::size_t(images * s.side2() * s.side2() * c1 * k2)); // conv2
        for (std::int64_t e = 0; e < std::int64_t(p2.size()); ++e)
            p2[std::size_t(e)] = a1[std::size_t(dm::im2colSource(e, c1, int(s.pooled1()), k))];
        z2.resize(std::size_t(R * c2 * cols2));
        productOnHost(m.conv2, W + s.conv2Weight, p2.data(), z2.data(), R);
        convBiasPool(z2, c2, cols2, s.conv2Bias, W, int(s.side2()), scale2.data(), a2, pick2);
        h.resize(std::size_t(images * s.hidden)); // fc1, ReLU, dropout
        h1.resize(h.size());
        productOnHost(m.fc1, a2.data(), W + s.fc1Weight, h.data(), R);
        for (std::int64_t e = 0; e < std::int64_t(h.size()); ++e) {
            h[std::size_t(e)] += W[e / (n * s.hidden) * P + s.fc1Bias + e % s.hidden];
            h1[std::size_t(e)] = dm::reluScaled(h[std::size_t(e)], scale3.data(), e);
        }
        logits.resize(std::size_t(images * s.classes)); // fc2, softmax
        productOnHost(m.fc2, h1.data(), W + s.fc2Weight, logits.data(), R);
        for (std::int64_t e = 0; e < std::int64_t(logits.size()); ++e)
            logits[std::size_t(e)] += W[e / (n * s.classes) * P + s.fc2Bias + e % s.classes];
        delta.resize(logits.size());
        rowLoss.resize(std::size_t(images));
        for (std::int64_t row = 0; row < images; ++row)
            rowLoss[std::size_t(row)] =
                dm::softmaxRow(logits.data() + row * s.classes, int(s.classes), y[std::size_t(row)],
                               n, delta.data() + row * s.classes);
        std::vector<float> losses(static_cast<std::size_t>(R));
        for (int r = 0; r < R; ++r) { // replicaLossKernel
            float sum = 0;
            for (int i = 0; i < n; ++i)
                sum += rowLoss[std::size_t(r * n + i)];
            losses[std::size_t(r)] = sum / float(n);
        }
        grads.assign(std::size_t(R * P), 0.0f);
        float* G = grads.data();
        productOnHost(m.fc2Weight, delta.data(), h1.data(), G + s.fc2Weight, R);
        for (std::int64_t q = 0; q < R * s.classes; ++q)
            G[q / s.classes * P + s.fc2Bias + q % s.classes] =
                dm::columnSum(delta.data(), n, s.classes, q / s.classes, q % s.classes);
        dh.resize(h.size());
        productOnHost(m.fc2Input, delta.data(), W + s.fc2Weight, dh.data(), R);
        for (std::int64_t e = 0; e < std::int64_t(dh.size()); ++e)
            dh[std::size_t(e)] =
                dm::reluScaledGradient(dh[std::size_t(e)], h1[std::size_t(e)], scale3.data(), e);
        productOnHost(m.fc1Weight, dh.data(), a2.data(), G + s.fc1Weight, R);
        for (std::int64_t q = 0; q < R * s.hidden; ++q)
            G[q / s.hidden * P + s.fc1Bias + q % s.hidden] =
                dm::columnSum(dh.data(), n, s.hidden, q / s.hidden, q % s.hidden);
        da2.resize(a2.size());
        productOnHost(m.fc1Input, dh.data(), W + s.fc1Weight, da2.data(), R);
        poolBackward(da2, a2, pick2, c2, int(s.side2()), scale2.data(), dz2);
        productOnHost(m.conv2Weight, dz2.data(), p2.data(), G + s.conv2Weight, R);
        channelSums(dz2, c2, cols2, s.conv2Bias, G);
        dp2.resize(p2.size());
        productOnHost(m.conv2Input, dz2.data(), W + s.conv2Weight, dp2.data(), R);
        da1.resize(a1.size());
        for (std::int64_t e = 0; e < std::int64_t(da1.size()); ++e)
            da1[std::size_t(e)] = dm::col2imGather(dp2.data(), e, c1, int(s.pooled1()), k);
        poolBackward(da1, a1, pick1, c1, int(s.side1()), nullptr, dz1);
        productOnHost(m.conv1Weight, dz1.data(), p1.data(), G + s.conv1Weight, R);
        channelSums(dz1, c1, cols1, s.conv1Bias, G);
        return losses;
    }
};

/// The CPU kernel's loss and dense gradient for `rows`, its dropout drawn as
/// a worker of rank `rank` draws for the batch at `place` of `epoch`.
template <class T>
T cpuStep(const Cnn& c, const std::vector<T>& params, const DatasetView& data,
          const std::vector<std::int64_t>& rows, std::uint64_t epoch, std::uint64_t place,
          std::uint32_t rank, std::vector<T>& grad, std::vector<std::vector<T>>* draws = nullptr) {
    NetKernel kernel(*c.net);
    Workspace<T> ws;
    ws.noiseKey = dropout::rankKey(dropout::batchKey(epoch, place), rank); // as the worker loop
    ws.dropoutLog = draws;
    const T loss =
        kernel.lossAndGradient(params.data(), data, rows.data(), std::int64_t(rows.size()), ws);
    grad.assign(ws.grad.values.begin(), ws.grad.values.begin() + c.model->layout().total());
    return loss;
}

} // namespace

class TestDeviceCnn : public QObject {
    Q_OBJECT
private slots:
    void productsFollowTheirDefinition() {
        // Every product the GPU's steps launch, through cuBLAS's
        // column-major call, equals its row-major definition: shapes,
        // transposes, leading dimensions and replica strides.
        const Cnn c = mnistCnn();
        const std::int64_t P = c.shape.total + 3; // a stride that is not the tensor's size
        const dm::CnnProducts m = dm::cnnProducts(c.shape, 3, P);
        const dm::MlpLayerProducts mlp = dm::mlpLayerProducts(7, 5, 4, 53);
        const dm::BatchedProduct all[] = {m.conv1,
                                          m.conv2,
                                          m.fc1,
                                          m.fc2,
                                          m.fc2Weight,
                                          m.fc2Input,
                                          m.fc1Weight,
                                          m.fc1Input,
                                          m.conv2Weight,
                                          m.conv2Input,
                                          m.conv1Weight,
                                          mlp.forward,
                                          mlp.weightGradient,
                                          mlp.inputGradient};
        std::uint64_t seed = 1;
        for (const dm::BatchedProduct& p : all) {
            constexpr int kReplicas = 2;
            const auto A = randomValues(std::size_t(p.strideA * kReplicas + p.m * p.k), seed++);
            const auto B = randomValues(std::size_t(p.strideB * kReplicas + p.k * p.n), seed++);
            std::vector<float> viaCublas(std::size_t(p.strideC * kReplicas + p.m * p.n), 7.0f);
            std::vector<float> byDefinition = viaCublas;
            QVERIFY(p.strideC >= p.m * p.n); // replicas' outputs do not overlap
            productOnHost(p, A.data(), B.data(), viaCublas.data(), kReplicas);
            productByDefinition(p, A.data(), B.data(), byDefinition.data(), kReplicas);
            QCOMPARE(viaCublas, byDefinition);
        }
    }

    void im2colAndCol2imAreTheCpus() {
        // Two images of 3 channels, 9 x 9, a 4 x 4 kernel (odd and even sides).
        const int n = 2, channels = 3, side = 9, k = 4, o = side - k + 1;
        const auto in = randomValues(std::size_t(n * channels * side * side), 11);
        const netops::Planes planes{n, channels, side * side, false};
        const netops::Window w{k, 1, 0, side, side, o, o};
        const std::int64_t width = channels * k * k, cols = n * o * o;
        std::vector<float> cpu(
            static_cast<std::size_t>(width * cols)); // [weight position][output position]
        netops::im2colRows(in.data(), planes, w, cpu.data());
        std::vector<float> gpu(cpu.size()); // [output position][weight position]
        for (std::int64_t e = 0; e < std::int64_t(gpu.size()); ++e)
            gpu[std::size_t(e)] = in[std::size_t(dm::im2colSource(e, channels, side, k))];
        for (std::int64_t j = 0; j < cols; ++j)
            for (std::int64_t q = 0; q < width; ++q)
                QCOMPARE(bits(gpu[std::size_t(j * width + q)]),
                         bits(cpu[std::size_t(q * cols + j)]));
        // col2im: the same sums in the same order, so the same bits.
        const auto grad = randomValues(gpu.size(), 12);
        std::vector<float> rowsLayout(grad.size());
        for (std::int64_t j = 0; j < cols; ++j)
            for (std::int64_t q = 0; q < width; ++q)
                rowsLayout[std::size_t(q * cols + j)] = grad[std::size_t(j * width + q)];
        std::vector<float> want(in.size(), 0.0f);
        netops::col2imRowsAdd(rowsLayout.data(), planes, w, want.data());
        for (std::int64_t e = 0; e < std::int64_t(in.size()); ++e)
            QCOMPARE(bits(dm::col2imGather(grad.data(), e, channels, side, k)),
                     bits(want[std::size_t(e)]));
    }

    void poolPicksAreTheCpus() {
        // Values from a small set, so windows hold ties: the first maximum
        // in row order wins on both sides; with Dropout2d's factors, ReLU.
        const int n = 3, channels = 2, side = 6, half = side / 2;
        Rng rng(21);
        std::vector<float> z(static_cast<std::size_t>(channels * n * side * side)); // [c][i][y][x]
        for (float& v : z)
            v = float(int(rng.below(5)) - 2);
        std::vector<float> scale(static_cast<std::size_t>(n * channels));
        for (float& v : scale)
            v = rng.below(3) == 0 ? 0.0f : 2.0f;
        const netops::Planes planes{n, channels, side * side, true};
        const netops::Window w{2, 2, 0, side, side, half, half};
        std::vector<float> want(static_cast<std::size_t>(n * channels * half * half));
        std::vector<std::int32_t> wantPick;
        netops::maxPool2(z.data(), planes, w, scale.data(), true, want.data(), wantPick);
        for (std::int64_t e = 0; e < std::int64_t(want.size()); ++e) {
            const dm::PoolWindow pw = dm::poolWindow(e, channels, n, side);
            QCOMPARE(pw.replica, std::int64_t(0));
            const std::int64_t best = dm::firstMax2x2(z.data(), pw.corner, side);
            // The CPU's pick is within its plane; the GPU's within the replica.
            const std::int64_t plane =
                (pw.plane % channels * n + pw.plane / channels) * side * side;
            QCOMPARE(best - plane, std::int64_t(wantPick[std::size_t(e)]));
            QCOMPARE(bits(dm::reluScaled(z[std::size_t(best)], scale.data(), pw.plane)),
                     bits(want[std::size_t(e)]));
        }
    }

    void dropoutDrawOrderIsTheCpuKernels_data() {
        QTest::addColumn<int>("batch");
        for (int b : {1, 5, 9, 16, 18, 32, 64})
            QTest::newRow(qPrintable(QString::number(b))) << b;
    }
    void dropoutDrawOrderIsTheCpuKernels() {
        // The masks the GPU's dropoutKernel draws (drawStep, seeded as
        // writeNoiseSeeds seeds a replica) are the ones the CPU kernel drew
        // for the same batch of a worker of the same rank, factor for factor.
        QFETCH(int, batch);
        const Cnn c = mnistCnn();
        const std::int64_t group = NetKernel(*c.net).group();
        QVERIFY2(group > 1 && group < 64, "cnn:mnist is trained in groups of rows");
        QCOMPARE(c.shape.dropoutGroup, group); // what the GPU is told
        const Dataset data = makeRandom(64, 784, 10, 4);
        std::vector<float> params(std::size_t(c.model->layout().total()));
        c.model->initialize(params.data(), 3);
        std::vector<std::int64_t> rows(static_cast<std::size_t>(batch));
        std::iota(rows.begin(), rows.end(), 0);
        const std::uint64_t epoch = 3, place = 96, rank = 2;
        std::vector<std::vector<float>> draws;
        std::vector<float> grad;
        cpuStep(c, params, data.view(), rows, epoch, place, rank, grad, &draws);
        std::vector<const std::vector<float>*> logged;
        for (const auto& d : draws)
            if (!d.empty())
                logged.push_back(&d);
        QCOMPARE(int(logged.size()), 2); // Dropout2d before the pool, dropout after fc1
        std::vector<float> scale2(static_cast<std::size_t>(batch * c.shape.conv2));
        std::vector<float> scale3(static_cast<std::size_t>(batch * c.shape.hidden));
        auto replay = [&](std::int64_t g) {
            std::uint64_t state[4];
            xoshiro::seed(state, dropout::stepSeed(c.shape.seed, epoch, place, rank));
            const double p[2] = {c.shape.dropout, c.shape.dropout};
            const std::int64_t width[2] = {c.shape.conv2, c.shape.hidden};
            float* const out[2] = {scale2.data(), scale3.data()};
            dropout::drawStep(state, p, 2, width, batch, g, out);
        };
        replay(c.shape.dropoutGroup);
        QCOMPARE(scale2, *logged[0]);
        QCOMPARE(scale3, *logged[1]);
        // The order the GPU drew before (every Dropout2d factor of the batch,
        // then every dropout factor) differs once the batch has two groups:
        // the check above can tell the orders apart.
        replay(0);
        if (batch > group)
            QVERIFY(scale2 != *logged[0] || scale3 != *logged[1]);
        else
            QVERIFY(scale2 == *logged[0] && scale3 == *logged[1]);
    }

    void stepOfReplicasIsTheCpuKernels_data() {
        QTest::addColumn<int>("replicas");
        QTest::addColumn<int>("batch");
        QTest::newRow("1 replica, 9 rows (one group)") << 1 << 9;
        QTest::newRow("2 replicas, 16 rows (9 + 7)") << 2 << 16;
        QTest::newRow("3 replicas, 5 rows") << 3 << 5;
    }
    void stepOfReplicasIsTheCpuKernels() {
        // A whole CNN step of R replicas (each with its own parameters, rows
        // and dropout stream) composed of the kernels' functions and
        // products, against NetKernel in double: the loss and the gradient
        // within float rounding (the GPU adds in other orders: cuBLAS, the
        // bias sums' tree, one pass over the batch instead of groups).
        QFETCH(int, replicas);
        QFETCH(int, batch);
        const Cnn c = mnistCnn();
        const std::int64_t total = c.model->layout().total(), P = total + 5;
        const Dataset data = makeRandom(96, 784, 10, 8);
        std::vector<float> params(std::size_t(replicas * P), 0.0f);
        std::vector<std::int32_t> rows(static_cast<std::size_t>(replicas * batch));
        std::vector<std::uint64_t> seeds(static_cast<std::size_t>(replicas));
        const std::uint64_t epoch = 2, place = std::uint64_t(batch) * 3;
        for (int r = 0; r < replicas; ++r) {
            c.model->initialize(params.data() + r * P, std::uint64_t(40 + r));
            for (int i = 0; i < batch; ++i)
                rows[std::size_t(r * batch + i)] = std::int32_t((r * 31 + i * 7) % 96);
            seeds[std::size_t(r)] = dropout::stepSeed(c.shape.seed, epoch, place, std::uint64_t(r));
        }
        HostCnnStep step(c.shape, replicas, batch, P);
        std::vector<float> grads;
        const std::vector<float> losses = step.run(params, data.view(), rows, seeds.data(), grads);
        for (int r = 0; r < replicas; ++r) {
            const std::vector<double> p(params.begin() + r * P, params.begin() + r * P + total);
            std::vector<std::int64_t> mine(rows.begin() + r * batch,
                                           rows.begin() + (r + 1) * batch);
            std::vector<double> want;
            const double loss =
                cpuStep(c, p, data.view(), mine, epoch, place, std::uint32_t(r), want);
            const std::vector<double> got(grads.begin() + r * P, grads.begin() + r * P + total);
            QVERIFY2(std::abs(double(losses[std::size_t(r)]) - loss) <= 1e-5 * std::max(1.0, loss),
                     qPrintable(QStringLiteral("replica %1: loss %2, the CPU's %3")
                                    .arg(r)
                                    .arg(double(losses[std::size_t(r)]))
                                    .arg(loss)));
            const double error = normalisedError(got, want);
            QVERIFY2(error <= 1e-5,
                     qPrintable(QStringLiteral("replica %1: gradient error %2").arg(r).arg(error)));
        }
    }

    void hogwildUpdateIsOptimSgd() {
        // gpu-hogwild's change (racy: v + change; atomic: += change) is
        // plain SGD's step of optim/sgd.h, bit for bit.
        for (const float wd : {0.0f, 0.01f}) {
            float p = 0.75f, v = 0.0f;
            dm::sgdElement(p, 0.3f, v, 0.05f, 0.0f, wd);
            QCOMPARE(bits(0.75f + dm::sgdChange(0.75f, 0.3f, 0.05f, wd)), bits(p));
        }
    }
};

QTEST_APPLESS_MAIN(TestDeviceCnn)
#include "tst_devicecnn.moc"
