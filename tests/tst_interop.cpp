// What the command line writes, read by other tools: python reads the
// safetensors header, numpy loads the npz, onnx's checker takes model.onnx,
// and torch.nn.Sequential takes the weights with load_state_dict (each
// skipped, with the reason, when the tool is not installed).
#include "clitest.h"
#include "testpaths.h"

using namespace hwl::test;

class TestInterop : public QObject {
    Q_OBJECT

    BaseRun base_; ///< the standard run, made in initTestCase

private slots:
    void initTestCase() { base_.make(); }

    void pythonReadsSafetensorsHeader() {
        if (!QFileInfo::exists(QString::fromLatin1(kPython)))
            QSKIP("/usr/bin/python3 is not installed");
        // A tiny reader with nothing but the standard library.
        const QString script = QStringLiteral(R"PY(
import json, struct, sys
path = sys.argv[1]
data = open(path, 'rb').read()
(n,) = struct.unpack('<Q', data[:8])
assert (8 + n) % 8 == 0, 'header not padded to 8 bytes'
header = json.loads(data[8:8 + n].decode('utf-8'))
meta = header.pop('__metadata__', {})
assert all(isinstance(v, str) for v in meta.values())
body = data[8 + n:]
end = 0
values = {}
for name, info in sorted(header.items(), key=lambda kv: kv[1]['data_offsets'][0]):
    assert info['dtype'] == 'F32', info
    begin, stop = info['data_offsets']
    assert begin == end, 'gap or overlap before ' + name
    count = 1
    for d in info['shape']:
        count *= d
    assert stop - begin == 4 * count, name
    values[name] = list(struct.unpack('<%df' % count, body[begin:stop]))
    end = stop
assert end == len(body), 'trailing bytes'
print(json.dumps({'shapes': {k: v['shape'] for k, v in header.items()},
                  'meta': meta, 'values': values}))
)PY");
        const PyResult py = runPython(script, {base_.out + "/weights.safetensors"});
        QVERIFY2(py.code == 0, py.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(py.out).object();
        const QJsonObject shapes = o.value("shapes").toObject();
        QCOMPARE(shapes.size(), qsizetype(4));
        QCOMPARE(shapes.value("0.weight").toArray(), (QJsonArray{32, 20}));
        QCOMPARE(shapes.value("0.bias").toArray(), (QJsonArray{32}));
        QCOMPARE(shapes.value("2.weight").toArray(), (QJsonArray{4, 32}));
        QCOMPARE(shapes.value("2.bias").toArray(), (QJsonArray{4}));
        const QJsonObject meta = o.value("meta").toObject();
        QCOMPARE(meta.value("format").toString(), QStringLiteral("pt"));
        QCOMPARE(meta.value("model").toString(), QStringLiteral("mlp:20-32-4"));
        QVERIFY(valuesFromJson(o.value("values").toObject()) == valuesOf(base_.weights));
    }

    void pythonNumpyLoadsNpz() {
        if (!pythonCan("numpy"))
            QSKIP("/usr/bin/python3 cannot import numpy (apt-get install python3-numpy)");
        const QString script = QStringLiteral(R"PY(
import json, sys
import numpy as np
with np.load(sys.argv[1]) as npz:
    out = {}
    for name in npz.files:
        a = npz[name]
        assert a.dtype == np.dtype('<f4'), a.dtype
        assert a.flags['C_CONTIGUOUS']
        out[name] = {'shape': list(a.shape), 'values': [float(x) for x in a.ravel()]}
print(json.dumps(out))
)PY");
        const PyResult py = runPython(script, {base_.out + "/weights.npz"});
        QVERIFY2(py.code == 0, py.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(py.out).object();
        QCOMPARE(o.size(), qsizetype(base_.weights.size()));
        for (const auto& t : base_.weights) {
            const QJsonObject entry = o.value(QString::fromStdString(t.name)).toObject();
            QVERIFY2(!entry.isEmpty(), t.name.c_str());
            std::vector<std::int64_t> shape;
            for (const auto& d : entry.value("shape").toArray())
                shape.push_back(d.toInteger());
            QVERIFY2(shape == t.shape, t.name.c_str());
            const QJsonArray values = entry.value("values").toArray();
            QCOMPARE(values.size(), qsizetype(t.data.size()));
            for (qsizetype i = 0; i < values.size(); ++i)
                QVERIFY2(values[i].toDouble() == double(t.data[std::size_t(i)]), t.name.c_str());
        }
    }

    // The command line's model.onnx is one onnx 1.12's checker takes, and
    // its initializers are weights.safetensors' tensors (tst_onnxinterop
    // runs such files and compares their outputs with the engine's).
    void onnxCheckerTakesModelOnnx() {
        if (!pythonCan("onnx"))
            QSKIP("/usr/bin/python3 cannot import onnx (apt-get install python3-onnx)");
        const QString script = QStringLiteral(R"PY(
import json, sys
import onnx
from onnx import numpy_helper
model = onnx.load(sys.argv[1])
onnx.checker.check_model(model, full_check=True)
print(json.dumps({t.name: [float(x) for x in numpy_helper.to_array(t).ravel()]
                  for t in model.graph.initializer}))
)PY");
        const PyResult py = runPython(script, {base_.out + "/model.onnx"});
        QVERIFY2(py.code == 0, py.err.constData());
        QVERIFY(valuesFromJson(QJsonDocument::fromJson(py.out).object()) ==
                valuesOf(base_.weights));
    }

    void pythonTorchLoadsStateDict() {
        if (!pythonCan("torch"))
            QSKIP("/usr/bin/python3 cannot import torch (optional check)");
        const QString script = QStringLiteral(R"PY(
import json, struct, sys
import torch
from torch import nn
data = open(sys.argv[1], 'rb').read()
(n,) = struct.unpack('<Q', data[:8])
header = json.loads(data[8:8 + n])
header.pop('__metadata__', None)
body = data[8 + n:]
state = {}
for name, info in header.items():
    begin, end = info['data_offsets']
    t = torch.frombuffer(bytearray(body[begin:end]), dtype=torch.float32)
    state[name] = t.reshape(info['shape'])
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
model.load_state_dict(state, strict=True)
with torch.no_grad():
    y = model(torch.zeros(1, 20))
assert y.shape == (1, 4)
assert torch.equal(model[0].bias, state['0.bias'])
print('ok')
)PY");
        const PyResult py = runPython(script, {base_.out + "/weights.safetensors"});
        QVERIFY2(py.code == 0, py.err.constData());
        QCOMPARE(py.out.trimmed(), QByteArray("ok"));
    }
};

QTEST_GUILESS_MAIN(TestInterop)
#include "tst_interop.moc"
