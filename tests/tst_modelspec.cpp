// The --model text: parsing, the canonical form, and the spec's fields (the
// messages of bad texts are in tst_experimentconfig's validateReportsField).
#include "config/experimentconfig.h"
#include "model/model.h"
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
        QTest::newRow("cnn") << "cnn:mnist"
                             << "cnn:mnist";
        QTest::newRow("net, every layer, defaults written out")
            << "net:3x32x32:conv16k3s1p1,relu,maxpool2s2,conv8k5s2,gelu,avgpool3s1,dropout2d,"
               "tanh,flatten,fc64,sigmoid,dropout0.25,fc10"
            << "net:3x32x32:conv16k3p1,relu,maxpool2,conv8k5s2,gelu,avgpool3s1,dropout2d,tanh,"
               "flatten,fc64,sigmoid,dropout0.25,fc10";
        QTest::newRow("net over a vector") << "net:784:fc128,relu,dropout0.5,fc10"
                                           << "net:784:fc128,relu,dropout0.5,fc10";
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
        QVERIFY(again.input == spec.input);
        QVERIFY(again.net == spec.net);
    }

    void layerShapesAndParameters() {
        // cnn:mnist's list, each shape after its layer and its parameters.
        const hwl::ModelSpec cnn = hwl::parseModelSpec("cnn:mnist");
        const auto infos = hwl::describeLayers(cnn.input, cnn.net);
        QStringList shapes;
        for (const auto& info : infos)
            shapes << QString::fromStdString(hwl::toString(info.out));
        QCOMPARE(shapes, (QStringList{"10x24x24", "10x12x12", "10x12x12", "20x8x8", "20x8x8",
                                      "20x4x4", "20x4x4", "320", "50", "50", "50", "10"}));
        QCOMPARE(infos[0].weights, std::int64_t(10 * 25));
        QCOMPARE(infos[3].weights, std::int64_t(20 * 10 * 25));
        QCOMPARE(infos[8].weights, std::int64_t(50 * 320));
        QCOMPARE(hwl::parameterCount(infos), std::int64_t(21840));
        QCOMPARE(hwl::makeModel(cnn)->layout().total(), std::int64_t(21840));
        // Stride, padding and a pool's stride.
        const auto net = hwl::parseModelSpec("net:3x32x32:conv16k3s2p1,maxpool3s2,flatten,fc10");
        const auto strided = hwl::describeLayers(net.input, net.net);
        QVERIFY((strided[0].out == hwl::TensorShape{16, 16, 16})); // (32 + 2 - 3) / 2 + 1
        QVERIFY((strided[1].out == hwl::TensorShape{16, 7, 7}));   // (16 - 3) / 2 + 1
        QVERIFY((strided[2].out == hwl::TensorShape{16 * 49, 0, 0}));
        QCOMPARE(net.classes, std::int64_t(10));
        QCOMPARE(net.inputWidth(), std::int64_t(3072));
        // Sequential numbering: the conv is layer 0, the fc layer 3.
        std::vector<std::string> names;
        const auto model = hwl::makeModel(net);
        for (const auto& t : model->layout().tensors())
            names.push_back(t.name);
        QCOMPARE(names, (std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"}));
        // What an MLP-shaped list spells, and what is not one.
        QCOMPARE(hwl::parseModelSpec("net:20:fc8,tanh,fc4").mlpEquivalent(),
                 std::string("mlp:20-8-4:tanh"));
        QCOMPARE(hwl::parseModelSpec("net:20:fc4").mlpEquivalent(), std::string("mlp:20-4"));
        QCOMPARE(hwl::parseModelSpec("net:20:fc8,relu,fc8,tanh,fc4").mlpEquivalent(),
                 std::string());
        QCOMPARE(hwl::parseModelSpec("net:20:fc8,relu,dropout,fc4").mlpEquivalent(), std::string());
        // Which lists read the experiment's dropout field.
        QVERIFY(cnn.usesDropoutField());
        QVERIFY(!hwl::parseModelSpec("net:20:fc8,dropout0.1,fc4").usesDropoutField());
        QVERIFY(hwl::parseModelSpec("net:20:fc8,dropout,fc4").usesDropoutField());
    }

    void layerListRefusals_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("words");
        QTest::newRow("no layers") << "net:784:"
                                   << "the network has no layers";
        QTest::newRow("three parts only") << "net:784"
                                          << "expected net:SHAPE:LAYER";
        QTest::newRow("conv without a kernel") << "net:1x8x8:conv4,flatten,fc2"
                                               << "layer 1 (conv4) is not convCkK";
        QTest::newRow("conv with junk") << "net:1x8x8:conv4k3x,flatten,fc2"
                                        << "layer 1 (conv4k3x) is not convCkK";
        QTest::newRow("zero stride") << "net:1x8x8:maxpool2s0,flatten,fc2"
                                     << "layer 1 (maxpool2s0) is not maxpoolK[sS]";
        QTest::newRow("a zero kernel") << "net:1x8x8:conv4k0,flatten,fc2"
                                       << "needs a kernel side in 1..1024";
        QTest::newRow("a huge kernel") << "net:1x8x8:conv4k99999,flatten,fc2"
                                       << "needs a kernel side in 1..1024";
        QTest::newRow("fc0") << "net:8:fc0"
                             << "layer 1 (fc0) is not fcN";
        QTest::newRow("one class") << "net:8:fc1"
                                   << "must be at least 2";
        QTest::newRow("a huge width") << "net:8:fc99999999999,fc2"
                                      << "is not fcN";
        QTest::newRow("a huge image") << "net:1x100000x100000:flatten,fc2"
                                      << "is not CxHxW";
        QTest::newRow("an activation map too large") << "net:1x4096x4096:conv64k1,flatten,fc2"
                                                     << "outputs 1073741824 values a sample";
        QTest::newRow("a patch matrix too large") << "net:16x1024x1024:conv1k5p2,flatten,fc2"
                                                  << "would unfold into more than";
        QTest::newRow("dropout2d on a vector") << "net:8:dropout2d,fc2"
                                               << "layer 1 (dropout2d) needs an image";
        QTest::newRow("dropout 1") << "net:8:dropout1,fc2"
                                   << "outside [0, 1)";
        QTest::newRow("300 layers") << "net:8:" + QStringList(300, "relu").join(",") + ",fc2"
                                    << "more than the limit of 256";
        // A long list is quoted by its head and length, not echoed whole.
        QTest::newRow("10000 layers quoted short")
            << "net:8:" + QStringList(10000, "relu").join(",") + ",fc2"
            << "relu...\" (50009 characters) is not valid";
        QTest::newRow("a padding past the cap") << "net:1x8x8:conv4k3p1025,flatten,fc2"
                                                << "has a padding of 1025, past the largest, 1024";
        QTest::newRow("a stride past the cap") << "net:1x8x8:maxpool2s2000,flatten,fc2"
                                               << "has a stride of 2000, past the largest, 1024";
        QTest::newRow("the stride after the padding")
            << "net:1x8x8:conv8k3p1s2,flatten,fc2"
            << "has its stride after its padding: the stride (s) comes first, e.g. conv8k3s2p1";
    }
    void longListsAreNotEchoed() {
        try {
            hwl::parseModelSpec("net:8:" + std::string(50000, 'x'));
            QFAIL("refused");
        } catch (const hwl::InputError& e) {
            QVERIFY2(std::string(e.what()).size() < 1000, e.what());
        }
    }
    void layerListRefusals() {
        QFETCH(QString, text);
        QFETCH(QString, words);
        HWL_VERIFY_THROWS(hwl::parseModelSpec(text.toStdString()), hwl::InputError,
                          words.toStdString());
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
