// The ONNX export (io/onnxexport.h, io/onnxgraph.h, io/protowire.h), read
// back with a reader of its own (onnxreader.h): the wire format's encodings
// at hand-worked bytes, then for every model kind the versions, the graph's
// inputs, outputs and nodes in order, each node's inputs defined before it,
// and the initializers equal, bit for bit, to the parameters under their
// PyTorch names. That other runtimes run the file and agree with the engine
// is tst_onnxinterop's.
#include "onnxreader.h"
#include "testutil.h"

#include "io/onnxexport.h"
#include "io/protowire.h"
#include "model/model.h"
#include "util/errors.h"
#include "util/limits.h"

#include <QTemporaryDir>

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>

using namespace hwl;
namespace reader = hwl::test::onnx;

namespace {

QByteArray bytesOf(const std::string& s) {
    return QByteArray(s.data(), qsizetype(s.size())).toHex(' ');
}

std::vector<float> initialised(const Model& model) {
    std::vector<float> params(std::size_t(model.layout().total()));
    model.initialize(params.data(), 7);
    return params;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : " ") + p;
    return out;
}

} // namespace

class TestOnnx : public QObject {
    Q_OBJECT

private slots:
    void varintsAreSevenBitsLowFirst() {
        QCOMPARE(bytesOf(ProtoWriter::encodeVarint(0)), QByteArray("00"));
        QCOMPARE(bytesOf(ProtoWriter::encodeVarint(127)), QByteArray("7f"));
        QCOMPARE(bytesOf(ProtoWriter::encodeVarint(128)), QByteArray("80 01"));
        QCOMPARE(bytesOf(ProtoWriter::encodeVarint(300)), QByteArray("ac 02"));
        QCOMPARE(bytesOf(ProtoWriter::encodeVarint(~std::uint64_t(0))),
                 QByteArray("ff ff ff ff ff ff ff ff ff 01"));
    }

    void fieldsCarryTheirTagAndWireType() {
        ProtoWriter w;
        w.varint(1, 7);     // tag 0x08
        w.varint(3, -1);    // tag 0x18, ten bytes
        w.fixed32(2, 1.0f); // tag 0x15
        w.bytes(4, "hi");   // tag 0x22
        const std::int64_t dims[] = {3, 300};
        w.packedVarints(1, dims); // tag 0x0a
        QCOMPARE(bytesOf(w.data()), QByteArray("08 07 18 ff ff ff ff ff ff ff ff ff 01 15 00 00 80 "
                                               "3f 22 02 68 69 0a 03 03 ac 02"));
        ProtoWriter outer;
        outer.message(16, w); // a field number past 15 takes two bytes of tag
        QCOMPARE(bytesOf(outer.data()).left(8), QByteArray("82 01 1b"));
    }

    void graphMatchesTheModel_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("ops");
        QTest::addColumn<QString>("inputs");  // name:type:dims for each graph input
        QTest::addColumn<QString>("outputs"); // the same for the graph's output
        QTest::newRow("mlp relu") << "mlp:20-32-4"
                                  << "Gemm Relu Gemm"
                                  << "input:1:batch,20"
                                  << "logits:1:batch,4";
        QTest::newRow("mlp tanh, two hidden") << "mlp:6-5-4-3:tanh"
                                              << "Gemm Tanh Gemm Tanh Gemm"
                                              << "input:1:batch,6"
                                              << "logits:1:batch,3";
        QTest::newRow("mlp sigmoid") << "mlp:6-5-3:sigmoid"
                                     << "Gemm Sigmoid Gemm"
                                     << "input:1:batch,6"
                                     << "logits:1:batch,3";
        QTest::newRow("logistic regression") << "mlp:6-3"
                                             << "Gemm"
                                             << "input:1:batch,6"
                                             << "logits:1:batch,3";
        QTest::newRow("cnn") << "cnn:mnist"
                             << "Conv MaxPool Relu Conv MaxPool Relu Flatten Gemm Relu Gemm"
                             << "input:1:batch,1,28,28"
                             << "logits:1:batch,10";
        QTest::newRow("layer list")
            << "net:2x8x8:conv4k3s2p1,gelu,maxpool2,dropout2d,avgpool2s1,tanh,flatten,fc6,"
               "sigmoid,dropout,fc3"
            << "Constant Constant Constant Conv Div Erf Add Mul Mul MaxPool AveragePool Tanh "
               "Flatten Gemm Sigmoid Gemm"
            << "input:1:batch,2,8,8"
            << "logits:1:batch,3";
        QTest::newRow("layer list over a vector") << "net:6:fc5,relu,dropout0.5,fc3"
                                                  << "Gemm Relu Gemm"
                                                  << "input:1:batch,6"
                                                  << "logits:1:batch,3";
        QTest::newRow("embedding bag")
            << "embedding-bag:50-8-4"
            << "Constant Constant Constant Constant Constant Constant Constant Slice Slice "
               "Shape Squeeze Range Unsqueeze Unsqueeze GreaterOrEqual Less And Cast Sub Cast "
               "Max Unsqueeze Gather Unsqueeze Mul MatMul Div Gemm"
            << "indices:7:tokens offsets:7:bags_plus_1 weights:1:tokens"
            << "logits:1:bags,4";
    }

    void graphMatchesTheModel() {
        QFETCH(QString, spec);
        QFETCH(QString, ops);
        QFETCH(QString, inputs);
        QFETCH(QString, outputs);
        const auto model = makeModel(parseModelSpec(spec.toStdString()));
        const std::vector<float> params = initialised(*model);
        const std::string bytes = onnxModel(*model, params.data(), {{"model", spec.toStdString()}});
        const reader::Model m = reader::readModel(bytes);

        QCOMPARE(m.irVersion, kOnnxIrVersion);
        QCOMPARE(m.opset, kOnnxOpset);
        QCOMPARE(m.producer, std::string("hogwild-lab"));
        QCOMPARE(m.graphName, spec.toStdString());
        QCOMPARE(m.metadata.at("model"), spec.toStdString());
        std::vector<std::string> opList;
        for (const reader::Node& n : m.nodes)
            opList.push_back(n.op);
        QCOMPARE(QString::fromStdString(joined(opList)), ops);
        const auto describe = [](const std::vector<reader::Value>& values) {
            std::vector<std::string> out;
            for (const reader::Value& v : values) {
                std::string dims;
                for (const std::string& d : v.dims)
                    dims += (dims.empty() ? "" : ",") + d;
                out.push_back(v.name + ":" + std::to_string(v.elemType) + ":" + dims);
            }
            return QString::fromStdString(joined(out));
        };
        QCOMPARE(describe(m.inputs), inputs);
        QCOMPARE(describe(m.outputs), outputs);
        checkInitializers(m, *model, params);
        checkNodesInOrder(m);
    }

    void writeOnnxRefusesAnUnwritablePath() {
        const auto model = makeModel(parseModelSpec("mlp:4-2"));
        const std::vector<float> params = initialised(*model);
        try {
            writeOnnx("/proc/nope/model.onnx", *model, params.data());
            QFAIL("an unwritable path was accepted");
        } catch (const InputError& e) {
            QVERIFY2(
                QByteArray(e.what()).contains("cannot write ONNX file \"/proc/nope/model.onnx\""),
                e.what());
        }
    }

    // protobuf parses no message of 2 GiB or more: such a model is refused
    // from its layout alone, before a parameter is read (there are none here).
    void modelPastTwoGibIsRefused() {
        const auto model = makeModel(parseModelSpec("mlp:30000-20000-10")); // 600M parameters
        QVERIFY(model->layout().total() > limits::kMaxOnnxParameters);
        try {
            (void)onnxModel(*model, nullptr);
            QFAIL("a model past 2 GiB was written");
        } catch (const InputError& e) {
            QVERIFY2(QByteArray(e.what()).contains("this model's parameters take 2290 MiB: export "
                                                   "safetensors or .npz instead"),
                     e.what());
        }
    }

    void runWritesOnnxBySuffix() {
        ExperimentConfig c;
        c.dataset = "teacher:300x6:3";
        c.model = "mlp:6-5-3";
        c.epochs = 1;
        const auto run = test::runToEnd(c);
        QTemporaryDir dir;
        const std::string file = dir.filePath("Model.ONNX").toStdString();
        run->writeWeights(file);
        QFile f(QString::fromStdString(file));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const reader::Model m = reader::readModel(std::string_view(bytes.data(), bytes.size()));
        QCOMPARE(m.metadata.at("model"), std::string("mlp:6-5-3"));
        QCOMPARE(m.metadata.at("epochs_completed"), std::string("1"));
        const auto model = makeModel(parseModelSpec(c.model));
        checkInitializers(m, *model, run->parameters());
    }

    // Issue 50, point 10: --normalize was left out of the graph, so raw
    // inputs were classified as if normalised (26.9% for a run's 52.0%).
    // It is the graph's first two nodes: Sub the mean, Div the std, each
    // one value or one per feature in the input's shape.
    void normalisationIsTheGraphsFirstNodes_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("values"); // 1: global or given; else per feature
        QTest::addColumn<QString>("dims");
        QTest::newRow("mlp, global") << "mlp:6-5-3" << 1 << "1";
        QTest::newRow("mlp, per-feature") << "mlp:6-5-3" << 6 << "6";
        QTest::newRow("image, per-feature")
            << "net:2x4x4:conv3k3,relu,flatten,fc3" << 32 << "2,4,4";
        QTest::newRow("cnn, given") << "cnn:mnist" << 1 << "1";
    }

    void normalisationIsTheGraphsFirstNodes() {
        QFETCH(QString, spec);
        QFETCH(int, values);
        QFETCH(QString, dims);
        const auto model = makeModel(parseModelSpec(spec.toStdString()));
        const std::vector<float> params = initialised(*model);
        Normalization n;
        n.setting = values == 1 ? "0.5,2" : "per-feature";
        for (int i = 0; i < values; ++i) {
            n.mean.push_back(0.5f + float(i));
            n.stddev.push_back(2.0f + float(i));
        }
        const reader::Model m = reader::readModel(onnxModel(*model, params.data(), {}, n));
        QVERIFY(m.nodes.size() > 2);
        QCOMPARE(m.nodes[0].op, std::string("Sub"));
        QCOMPARE(m.nodes[0].inputs, (std::vector<std::string>{"input", "normalize_mean"}));
        QCOMPARE(m.nodes[1].op, std::string("Div"));
        QCOMPARE(m.nodes[1].inputs,
                 (std::vector<std::string>{m.nodes[0].outputs[0], "normalize_std"}));
        QCOMPARE(m.nodes[2].inputs.front(), m.nodes[1].outputs[0]); // the first layer reads it
        for (const auto& [name, expected] :
             {std::pair{"normalize_mean", n.mean}, std::pair{"normalize_std", n.stddev}}) {
            const std::string wanted = name; // a lambda may not capture a structured binding
            const auto t = std::find_if(m.initializers.begin(), m.initializers.end(),
                                        [&](const reader::Tensor& x) { return x.name == wanted; });
            QVERIFY2(t != m.initializers.end(), name);
            QStringList shape;
            for (const std::int64_t d : t->dims)
                shape << QString::number(d);
            QCOMPARE(shape.join(','), dims);
            QCOMPARE(t->raw.size(), expected.size() * sizeof(float));
            QVERIFY(std::memcmp(t->raw.data(), expected.data(), t->raw.size()) == 0);
        }
        checkNodesInOrder(m);
        // Neither one value nor one per feature: a caller's mistake.
        n.mean.push_back(1);
        n.stddev.push_back(1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 (void)onnxModel(*model, params.data(), {}, n));
    }

    // A run with --normalize writes it into model.onnx and says so in the
    // metadata, which keeps the mean and std; --onnx-normalized-inputs
    // writes the graph for normalised inputs.
    void runWritesItsNormalisationUnlessToldNot() {
        for (const bool normalizedInputs : {false, true}) {
            ExperimentConfig c;
            c.dataset = "teacher:300x6:3";
            c.model = "mlp:6-5-3";
            c.epochs = 1;
            c.normalize = "per-feature";
            c.onnxNormalizedInputs = normalizedInputs;
            const auto run = test::runToEnd(c);
            QTemporaryDir dir;
            const std::string file = dir.filePath("model.onnx").toStdString();
            run->writeWeights(file);
            QFile f(QString::fromStdString(file));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            const reader::Model m = reader::readModel(std::string_view(bytes.data(), bytes.size()));
            QCOMPARE(m.nodes.front().op, std::string(normalizedInputs ? "Gemm" : "Sub"));
            QCOMPARE(m.metadata.at("normalize_in_graph"),
                     std::string(normalizedInputs ? "false" : "true"));
            QCOMPARE(m.metadata.at("normalize"), std::string("per-feature"));
            QVERIFY(m.metadata.at("normalize_mean").rfind("[", 0) == 0);
            QVERIFY(m.metadata.at("normalize_std").rfind("[", 0) == 0);
        }
    }

private:
    /// One float initializer per tensor of the layout, in its order, named
    /// and shaped as it, holding exactly its values.
    static void checkInitializers(const reader::Model& m, const Model& model,
                                  const std::vector<float>& params) {
        const auto& tensors = model.layout().tensors();
        QCOMPARE(m.initializers.size(), tensors.size());
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            const reader::Tensor& t = m.initializers[i];
            QCOMPARE(t.name, tensors[i].name);
            QCOMPARE(t.dims, tensors[i].shape);
            QCOMPARE(t.dataType, std::int64_t(1));
            QCOMPARE(t.raw.size(), std::size_t(tensors[i].size) * sizeof(float));
            QVERIFY2(std::memcmp(t.raw.data(), params.data() + tensors[i].offset, t.raw.size()) ==
                         0,
                     t.name.c_str());
        }
    }

    /// Every node's inputs are a graph input, an initializer or an earlier
    /// node's output (ONNX wants the nodes sorted so); each value is made
    /// once; the graph's outputs are made.
    static void checkNodesInOrder(const reader::Model& m) {
        std::set<std::string> known;
        for (const auto& v : m.inputs)
            known.insert(v.name);
        for (const auto& t : m.initializers)
            known.insert(t.name);
        for (const reader::Node& n : m.nodes) {
            QVERIFY2(!n.name.empty(), n.op.c_str());
            for (const std::string& in : n.inputs)
                QVERIFY2(known.count(in), (n.name + " reads " + in + " before it is made").c_str());
            for (const std::string& out : n.outputs)
                QVERIFY2(known.insert(out).second, (out + " is made twice").c_str());
            if (n.op == "Constant") {
                QCOMPARE(n.attributes.size(), std::size_t(1));
                QCOMPARE(n.attributes[0].type, std::int64_t(4)); // TENSOR
            }
        }
        for (const auto& v : m.outputs)
            QVERIFY2(known.count(v.name), v.name.c_str());
    }
};

QTEST_GUILESS_MAIN(TestOnnx)
#include "tst_onnx.moc"
