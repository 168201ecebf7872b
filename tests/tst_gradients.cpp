// Gradients of every layer, activation and loss against central finite
// differences, in double precision (the CPU reference kernel every backend
// is compared with in tst_backends), for every model kind.
#include "backend/cpu/modelkernel.h"
#include "backend/cpu/netops.h"
#include "data/datasources.h"
#include "model/model.h"

#include <QTest>

#include <cmath>
#include <numeric>

using namespace hwl;

class TestGradients : public QObject {
    Q_OBJECT

private:
    // Compares the analytic gradient with (L(p + h e_i) - L(p - h e_i)) / 2h
    // for every parameter, and returns the worst relative error.
    // With `kinks`, a probe within h of a kink is checked against the
    // one-sided slope instead, and counted there.
    static double worstError(const Model& model, const DatasetView& data,
                             std::size_t probesPerTensor = 0, int* kinks = nullptr) {
        const auto total = std::size_t(model.layout().total());
        std::vector<float> init(total);
        model.initialize(init.data(), 7);
        std::vector<double> params(init.begin(), init.end());
        std::vector<std::int64_t> rows(std::size_t(std::min<std::int64_t>(data.rows, 8)));
        std::iota(rows.begin(), rows.end(), std::int64_t(0));
        const auto n = std::int64_t(rows.size());

        const auto kernel = makeModelKernel(model);
        Workspace<double> ws;
        ws.noiseKey = 5; // the dropout draws: the same for every probe below
        const double loss = kernel->lossAndGradient(params.data(), data, rows.data(), n, ws);
        std::vector<double> analytic(total, 0.0); // scatter the segments
        for (const auto& seg : ws.grad.segments)
            for (std::int64_t i = 0; i < seg.length; ++i)
                analytic[std::size_t(seg.offset + i)] +=
                    ws.grad.values[std::size_t(seg.valueIndex + i)];

        double worst = 0;
        // Near cbrt(machine epsilon), where the central difference's rounding
        // error (~eps * |L| / h) and truncation error (~h^2) balance. At 1e-6
        // rounding alone reached 1.2e-6 relative on the smallest gradients in
        // a build without FMA/AVX (the bound then held only by luck); at 1e-5
        // the worst case measured is 7e-8 in both builds.
        const double h = 1e-5;
        Workspace<double> probe;
        probe.noiseKey = ws.noiseKey;
        for (const std::size_t i : probed(model, probesPerTensor)) {
            const double saved = params[i];
            params[i] = saved + h;
            const double up = kernel->lossAndGradient(params.data(), data, rows.data(), n, probe);
            params[i] = saved - h;
            const double down = kernel->lossAndGradient(params.data(), data, rows.data(), n, probe);
            params[i] = saved;
            const double numeric = (up - down) / (2 * h);
            auto relative = [&](double estimate) {
                return std::abs(estimate - analytic[i]) /
                       std::max(1e-4, std::abs(estimate) + std::abs(analytic[i]));
            };
            double err = relative(numeric);
            // Within h of a kink (a ReLU at 0, a max-pool's tie) the loss has
            // no derivative and the central difference mixes two slopes; the
            // analytic gradient is then the slope of the side the point lies
            // on, which a one-sided difference (error O(h)) must match.
            if (err > 1e-6 && kinks) {
                const double side =
                    std::min(relative((up - loss) / h), relative((loss - down) / h));
                if (side < 1e-3) {
                    ++*kinks;
                    err = 0;
                }
            }
            worst = std::max(worst, err);
        }
        return worst;
    }

    // Every parameter, or (probesPerTensor > 0) that many spread evenly over
    // each tensor, its first and last included.
    static std::vector<std::size_t> probed(const Model& model, std::size_t probesPerTensor) {
        std::vector<std::size_t> at;
        for (const auto& t : model.layout().tensors()) {
            const auto size = std::size_t(t.size);
            const std::size_t count = probesPerTensor ? std::min(size, probesPerTensor) : size;
            for (std::size_t j = 0; j < count; ++j)
                at.push_back(std::size_t(t.offset) +
                             (count > 1 ? j * (size - 1) / (count - 1) : 0));
        }
        return at;
    }

private slots:
    void mlp_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("logistic regression") << "mlp:6-3";
        QTest::newRow("relu hidden") << "mlp:6-5-3";
        QTest::newRow("tanh hidden") << "mlp:6-5-3:tanh";
        QTest::newRow("sigmoid hidden") << "mlp:6-5-3:sigmoid";
        QTest::newRow("three hidden, relu") << "mlp:6-7-5-4-3";
        QTest::newRow("three hidden, tanh") << "mlp:6-7-5-4-3:tanh";
    }
    void mlp() {
        QFETCH(QString, model);
        const auto m = makeModel(parseModelSpec(model.toStdString()));
        const Dataset data = makeTeacher(16, 6, 3, 4, 11);
        QVERIFY2(worstError(*m, data.view()) < 1e-6, qPrintable(model));
    }

    void mlpOnSparseRows() {
        // The MLP gathers sparse rows into a dense batch: same gradient rules.
        const auto m = makeModel(parseModelSpec("mlp:30-5-3:tanh"));
        const Dataset data = makeSparseBow(16, 30, 3, 4, 5);
        QVERIFY(data.isSparse());
        QVERIFY(worstError(*m, data.view()) < 1e-6);
    }

    void embeddingBag() {
        const auto m = makeModel(parseModelSpec("embedding-bag:30-4-3"));
        const Dataset data = makeSparseBow(16, 30, 3, 5, 3);
        QVERIFY(worstError(*m, data.view()) < 1e-6);
    }

    void cnn_data() {
        QTest::addColumn<double>("dropout");
        QTest::newRow("without dropout") << 0.0;
        QTest::newRow("with dropout 0.5 (fixed draws)") << 0.5;
    }
    void cnn() {
        // Both convolutions, both max-pools, Dropout2d, dropout and both
        // linear layers: 60 parameters of each tensor (every bias whole).
        QFETCH(double, dropout);
        ModelSpec spec = parseModelSpec("cnn:mnist");
        spec.dropout = dropout;
        spec.dropoutSeed = 3;
        const auto m = makeModel(spec);
        const Dataset data = makeTeacher(16, 784, 10, 8, 21);
        int kinks = 0;
        const double worst = worstError(*m, data.view(), 60, &kinks);
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
        QVERIFY2(kinks <= 2, qPrintable(QString::number(kinks))); // of its 330 probes
    }

    void layerList_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<double>("dropout");
        QTest::addColumn<int>("rows");
        // Each step and order of the CPU kernel: padding and stride, a
        // convolution reading another's channel-major output, overlapping
        // max-pool windows, average pooling, a Dropout2d on its own (and
        // fused before a max-pool), flatten of a channel-major image, every
        // activation.
        QTest::newRow("conv padding and stride, gelu, avgpool")
            << "net:2x7x7:conv3k3s2p1,gelu,avgpool2,flatten,fc5,sigmoid,fc3" << 0.0 << 6;
        QTest::newRow("conv after conv, overlapping maxpool, tanh")
            << "net:1x9x9:conv3k3,tanh,conv4k2p1,maxpool3s2,relu,flatten,fc3" << 0.0 << 6;
        QTest::newRow("dropout2d alone and before a pool, dropout (fixed draws)")
            << "net:2x8x8:conv4k3,dropout2d,relu,conv4k3,dropout2d,maxpool2,flatten,fc6,relu,"
               "dropout,fc3"
            << 0.3 << 6;
        QTest::newRow("flatten straight after a conv, explicit probabilities")
            << "net:1x6x6:conv3k3p1,flatten,dropout0.2,fc4,gelu,fc3" << 0.5 << 6;
        QTest::newRow("a vector list") << "net:12:fc7,gelu,fc5,tanh,dropout0.25,fc3" << 0.5 << 8;
    }
    void layerList() {
        QFETCH(QString, model);
        QFETCH(double, dropout);
        QFETCH(int, rows);
        ModelSpec spec = parseModelSpec(model.toStdString());
        spec.dropout = dropout;
        spec.dropoutSeed = 11;
        const auto m = makeModel(spec);
        const Dataset data = makeTeacher(rows, spec.inputWidth(), 3, 8, 17);
        int kinks = 0;
        const double worst = worstError(*m, data.view(), 40, &kinks);
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
        QVERIFY2(kinks <= 2, qPrintable(QString::number(kinks)));
    }

    void cnnDropoutDrawsFollowTheKey() {
        // The same noise key drops the same units; another key others; p = 0
        // and evaluation drop none.
        ModelSpec spec = parseModelSpec("cnn:mnist");
        spec.dropoutSeed = 9;
        const auto m = makeModel(spec);
        const Dataset data = makeTeacher(16, 784, 10, 8, 4);
        std::vector<float> params(std::size_t(m->layout().total()));
        m->initialize(params.data(), 1);
        std::vector<std::int64_t> rows(8);
        std::iota(rows.begin(), rows.end(), std::int64_t(0));
        const auto kernel = makeModelKernel(*m);
        auto lossAt = [&](std::uint64_t key) {
            Workspace<float> ws;
            ws.noiseKey = key;
            return kernel->lossAndGradient(params.data(), data.view(), rows.data(), 8, ws);
        };
        QCOMPARE(lossAt(1), lossAt(1));
        QVERIFY(lossAt(1) != lossAt(2));
        spec.dropout = 0;
        const auto plain = makeModelKernel(*makeModel(spec));
        Workspace<float> a, b;
        a.noiseKey = 1;
        b.noiseKey = 2;
        QCOMPARE(plain->lossAndGradient(params.data(), data.view(), rows.data(), 8, a),
                 plain->lossAndGradient(params.data(), data.view(), rows.data(), 8, b));
        // Evaluation is the network without dropout: its loss is p = 0's.
        Workspace<float> e;
        const EvalResult eval = kernel->evaluate(params.data(), data.view(), 0, 8, e);
        QVERIFY(std::abs(eval.meanLoss() - double(plain->lossAndGradient(params.data(), data.view(),
                                                                         rows.data(), 8, a))) <
                1e-6);
    }

    void pairPoolMatchesTheGeneralPool() {
        // maxPool2 (2x2 windows at stride 2) is the general maxPool's fast
        // path: the same outputs and picks, ties included (values drawn from
        // three levels, so most windows hold a tie: the first maximum in row
        // order wins, as PyTorch's), and the same input gradients.
        const netops::Window w{2, 2, 0, 6, 8, 3, 4};
        QVERIFY(netops::pairsCoverInput(w));
        QVERIFY(!netops::pairsCoverInput({2, 2, 0, 7, 8, 3, 4})); // a row left over
        Rng rng(5);
        const netops::Planes planes{3, 2, 48, true};
        std::vector<float> z(3 * 2 * 48), scale{1.f, 0.f, 2.f, 1.f, 0.5f, 2.f};
        for (float& v : z)
            v = float(int(rng.uniform() * 3)) - 1.f;
        std::vector<float> dout(3 * 2 * 12);
        for (float& v : dout)
            v = float(rng.uniform()) - 0.5f;
        for (const bool relu : {false, true}) {
            std::vector<float> general(dout.size()), fast(dout.size());
            std::vector<std::int32_t> generalPick, fastPick;
            netops::maxPool(z.data(), planes, w, scale.data(), relu, general.data(), generalPick);
            netops::maxPool2(z.data(), planes, w, scale.data(), relu, fast.data(), fastPick);
            QCOMPARE(fast, general);
            QCOMPARE(fastPick, generalPick);
            std::vector<float> dzGeneral(z.size(), 0.f), dzFast(z.size(), 0.f);
            netops::maxPoolBackward(dout.data(), general.data(), generalPick, planes, w,
                                    scale.data(), relu, dzGeneral.data());
            if (relu)
                netops::maxPool2Backward<float, true>(dout.data(), fast.data(), fastPick, planes, w,
                                                      scale.data(), dzFast.data());
            else
                netops::maxPool2Backward<float, false>(dout.data(), fast.data(), fastPick, planes,
                                                       w, scale.data(), dzFast.data());
            QCOMPARE(dzFast, dzGeneral);
        }
    }

    void lossIsCrossEntropyOfUniformAtZero() {
        // All-zero parameters give uniform softmax: loss = log(classes) exactly.
        const auto m = makeModel(parseModelSpec("mlp:6-5-4"));
        const Dataset data = makeTeacher(8, 6, 4, 4, 1);
        std::vector<double> params(std::size_t(m->layout().total()), 0.0);
        std::vector<std::int64_t> rows{0, 1, 2, 3};
        Workspace<double> ws;
        const double loss =
            makeModelKernel(*m)->lossAndGradient(params.data(), data.view(), rows.data(), 4, ws);
        QVERIFY(std::abs(loss - std::log(4.0)) < 1e-12);
    }

    void initialisationMatchesPytorchBounds() {
        // nn.Linear: weight and bias ~ U(-1/sqrt(in), 1/sqrt(in)).
        const auto m = makeModel(parseModelSpec("mlp:100-256-10"));
        std::vector<float> p(std::size_t(m->layout().total()));
        m->initialize(p.data(), 42);
        for (const auto& t : m->layout().tensors()) {
            const double in = t.name[0] == '0' ? 100 : 256;
            const float bound = float(1 / std::sqrt(in));
            float lo = 1, hi = -1;
            for (std::int64_t i = 0; i < t.size; ++i) {
                lo = std::min(lo, p[std::size_t(t.offset + i)]);
                hi = std::max(hi, p[std::size_t(t.offset + i)]);
            }
            QVERIFY2(lo >= -bound && hi <= bound, t.name.c_str());
            QVERIFY2(hi - lo > 1.8f * bound, t.name.c_str()); // actually spread over the range
        }
        std::vector<float> again(p.size());
        m->initialize(again.data(), 42);
        QCOMPARE(again, p); // seeded
    }

    void layoutMatchesPytorchStateDict() {
        const auto m = makeModel(parseModelSpec("mlp:100-256-10"));
        const auto& t = m->layout().tensors();
        QCOMPARE(t.size(), std::size_t(4));
        QCOMPARE(t[0].name, std::string("0.weight"));
        QCOMPARE(t[0].shape, (std::vector<std::int64_t>{256, 100}));
        QCOMPARE(t[1].name, std::string("0.bias"));
        QCOMPARE(t[2].name, std::string("2.weight"));
        QCOMPARE(t[2].shape, (std::vector<std::int64_t>{10, 256}));
        QCOMPARE(t[3].name, std::string("2.bias"));
        QCOMPARE(m->layout().total(), std::int64_t(256 * 100 + 256 + 10 * 256 + 10));
        const auto e = makeModel(parseModelSpec("embedding-bag:1000-16-4"));
        QCOMPARE(e->layout().tensors()[0].name, std::string("embedding.weight"));
        QCOMPARE(e->layout().tensors()[1].name, std::string("fc.weight"));
        QCOMPARE(e->layout().tensors()[2].name, std::string("fc.bias"));
        // examples/mnist_hogwild's Net, in its state_dict's order.
        const auto c = makeModel(parseModelSpec("cnn:mnist"));
        std::vector<std::string> names;
        std::vector<std::vector<std::int64_t>> shapes;
        for (const auto& t : c->layout().tensors()) {
            names.push_back(t.name);
            shapes.push_back(t.shape);
        }
        QCOMPARE(names, (std::vector<std::string>{"conv1.weight", "conv1.bias", "conv2.weight",
                                                  "conv2.bias", "fc1.weight", "fc1.bias",
                                                  "fc2.weight", "fc2.bias"}));
        QCOMPARE(shapes,
                 (std::vector<std::vector<std::int64_t>>{
                     {10, 1, 5, 5}, {10}, {20, 10, 5, 5}, {20}, {50, 320}, {50}, {10, 50}, {10}}));
        QCOMPARE(c->layout().total(), std::int64_t(21840));
    }
};

QTEST_GUILESS_MAIN(TestGradients)
#include "tst_gradients.moc"
