// Tests for the CPU kernels of each instruction set (core/util/cpukernels.h):
// every module this build made computes what the engine's own copy computes
// (the matrix products to a rounding; the bag mean, the SGD rule and the
// collectives' mean in rank order bit for bit), a whole run gives the same
// loss with each, the choice follows the processor and HWL_CPU_KERNELS, what
// cannot be had is refused in one line, and a portable build's engine holds
// no instruction beyond x86-64-v2 while each module exports its table and
// nothing else. A level this processor does not run reports SKIP with the
// reason.
#include "testpaths.h"
#include "util/cpukernels.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace hwl;

namespace {

std::vector<float> randomVector(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v)
        x = u(rng);
    return v;
}

/// The largest difference relative to the largest magnitude of `want`.
double relativeError(const std::vector<float>& got, const std::vector<float>& want) {
    double diff = 0, scale = 1e-30;
    for (std::size_t i = 0; i < want.size(); ++i) {
        diff = std::max(diff, std::fabs(double(got[i]) - double(want[i])));
        scale = std::max(scale, std::fabs(double(want[i])));
    }
    return diff / scale;
}

bool bitEqual(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct Run {
    int code = -1;
    QString out, err;
    QString describe() const {
        return QStringLiteral("exit %1\n--- stdout ---\n%2--- stderr ---\n%3")
            .arg(code)
            .arg(out, err);
    }
};

/// Runs the engine executable with `env` added to this process' environment.
Run engine(const QStringList& args, const QStringList& env) {
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.remove("HWL_CPU_KERNELS");
    e.remove("HWL_CPU_MAX_LEVEL");
    for (const QString& kv : env)
        e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(e);
    p.start(QString::fromUtf8(test::kEngineBinary), args);
    Run r;
    if (!p.waitForStarted(10000) || !p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished(5000);
        r.err = "did not start or finish";
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QStringList builtModules() {
    return QString::fromUtf8(test::kCpuModules).split(',', Qt::SkipEmptyParts);
}

int levelOf(const QString& level) {
    return level.right(1).toInt(); // "x86-64-v3" -> 3
}

/// The module of `level`, or null after QSKIP/QFAIL says why.
#define LOAD_MODULE(table, level)                                                                  \
    if (!builtModules().contains(level))                                                           \
        QSKIP("this build makes no CPU kernel modules (a sanitizer or fuzz build)");               \
    if (levelOf(level) > cpuLevel())                                                               \
        QSKIP(qPrintable(QStringLiteral("this processor runs up to x86-64-v%1, not %2")            \
                             .arg(cpuLevel())                                                      \
                             .arg(level)));                                                        \
    std::string why_;                                                                              \
    const HwlCpuKernels* table = loadCpuKernelModule((level).toStdString(), &why_);                \
    QVERIFY2(table, why_.c_str())

/// The final training loss a run printed ("summary: final ..., train loss X").
double finalLoss(const Run& r) {
    const auto m = QRegularExpression(R"(^summary: final .*train loss ([0-9.]+))",
                                      QRegularExpression::MultilineOption)
                       .match(r.out);
    return m.hasMatch() ? m.captured(1).toDouble() : std::nan("");
}

} // namespace

class TestCpuKernels : public QObject {
    Q_OBJECT

private slots:
    void levels_data() {
        QTest::addColumn<QString>("level");
        for (const std::string& level : cpuKernelModuleLevels())
            QTest::newRow(level.c_str()) << QString::fromStdString(level);
    }

    // The products of every shape the kernels use, odd sizes and a
    // convolution's included, packed (Eigen's) and direct, to a rounding of
    // the engine's own packed copy (FMA and blocking differ).
    void productsMatchTheBuiltIn_data() { levels_data(); }
    void productsMatchTheBuiltIn() {
        QFETCH(QString, level);
        LOAD_MODULE(module, level);
        const HwlCpuKernels& own = builtinCpuKernels();
        QCOMPARE(QString(module->level), level);
        std::mt19937 rng(5);
        const std::int64_t shapes[][3] = {{1, 1, 1},       {7, 3, 5},      {37, 129, 61},
                                          {128, 256, 100}, {64, 10, 256},  {10, 1728, 25},
                                          {20, 250, 384},  {250, 192, 20}, {3, 50, 33}};
        using Product = void (*)(const float*, const float*, float*, int64_t, int64_t, int64_t);
        struct Kind {
            const char* name;
            Product HwlCpuKernels::*entry;
            bool aTransposed, bTransposed; // a (k x m), b (k x n) rather than (m x k), (n x k)
        };
        const Kind kinds[] = {{"NT", &HwlCpuKernels::productNT, false, false},
                              {"TN", &HwlCpuKernels::productTN, true, true},
                              {"NN", &HwlCpuKernels::productNN, false, true},
                              {"direct NT", &HwlCpuKernels::directNT, false, false},
                              {"direct TN", &HwlCpuKernels::directTN, true, true},
                              {"direct NN", &HwlCpuKernels::directNN, false, true}};
        for (const auto& s : shapes) {
            const std::int64_t m = s[0], n = s[1], k = s[2];
            const auto a = randomVector(std::size_t(m * k), rng);
            const auto b = randomVector(std::size_t(n * k), rng);
            for (const Kind& kind : kinds) {
                const QString what = QString("%1 %2x%3x%4").arg(kind.name).arg(m).arg(n).arg(k);
                std::vector<float> got(std::size_t(m * n)), want(got.size());
                (module->*kind.entry)(a.data(), b.data(), got.data(), m, n, k);
                // The packed product of the same layout in the engine's own copy.
                const Product packed = kind.aTransposed   ? own.productTN
                                       : kind.bTransposed ? own.productNN
                                                          : own.productNT;
                packed(a.data(), b.data(), want.data(), m, n, k);
                QVERIFY2(relativeError(got, want) < 1e-5, qPrintable(what));
                // And they are products: the last entry by hand.
                double dot = 0;
                for (std::int64_t i = 0; i < k; ++i)
                    dot +=
                        double(a[std::size_t(kind.aTransposed ? i * m + m - 1 : (m - 1) * k + i)]) *
                        double(b[std::size_t(kind.bTransposed ? i * n + n - 1 : (n - 1) * k + i)]);
                QVERIFY2(std::fabs(got.back() - dot) < 1e-4 * std::max(1.0, std::fabs(dot)),
                         qPrintable(what + ": " + QString::number(got.back() - dot)));
            }
        }
    }

    // The bag mean and the SGD rule keep one order of operations per value:
    // the same bits on every instruction set.
    void bagAndUpdateAreBitEqual_data() { levels_data(); }
    void bagAndUpdateAreBitEqual() {
        QFETCH(QString, level);
        LOAD_MODULE(module, level);
        const HwlCpuKernels& own = builtinCpuKernels();
        std::mt19937 rng(9);
        const std::int64_t vocab = 300, dim = 37, bags = 20;
        const auto table = randomVector(std::size_t(vocab * dim), rng);
        std::vector<std::int64_t> offsets{0}, rows;
        std::vector<std::int32_t> indices;
        std::vector<float> values;
        for (std::int64_t r = 0; r < bags; ++r) {
            const int tokens = int(r % 7); // bag 0 (and 7, 14) is empty
            for (int t = 0; t < tokens; ++t) {
                indices.push_back(std::int32_t(rng() % vocab));
                values.push_back(0.5f + float(t));
            }
            offsets.push_back(std::int64_t(indices.size()));
            rows.push_back(bags - 1 - r);
        }
        std::vector<float> got(std::size_t(bags * dim), 7.0f), want(got.size(), -7.0f);
        module->bagMean(table.data(), dim, offsets.data(), indices.data(), values.data(),
                        rows.data(), bags, got.data());
        own.bagMean(table.data(), dim, offsets.data(), indices.data(), values.data(), rows.data(),
                    bags, want.data());
        QVERIFY(bitEqual(got, want));
        QCOMPARE(got[std::size_t((bags - 1) * dim)], 0.0f); // row 0's bag is empty: zeros

        // The backward pass into per-row slots (here: token t's at t * dim).
        std::vector<std::int64_t> slot(static_cast<std::size_t>(vocab));
        for (std::int64_t t = 0; t < vocab; ++t)
            slot[std::size_t(t)] = t * dim;
        const auto dh = randomVector(std::size_t(bags * dim), rng);
        std::vector<float> g1(std::size_t(vocab * dim), 0.0f), g2 = g1;
        module->bagScatter(dh.data(), dim, offsets.data(), indices.data(), values.data(),
                           rows.data(), bags, slot.data(), g1.data());
        own.bagScatter(dh.data(), dim, offsets.data(), indices.data(), values.data(), rows.data(),
                       bags, slot.data(), g2.data());
        QVERIFY(bitEqual(g1, g2));
        QVERIFY(std::any_of(g1.begin(), g1.end(), [](float x) { return x != 0.0f; }));

        for (const auto& [mu, wd] : {std::pair{0.0f, 0.0f}, {0.0f, 1e-3f}, {0.9f, 1e-4f}}) {
            const std::int64_t n = 1001;
            const auto g = randomVector(std::size_t(n), rng);
            auto p1 = randomVector(std::size_t(n), rng), p2 = p1;
            auto v1 = randomVector(std::size_t(n), rng), v2 = v1;
            for (int step = 0; step < 3; ++step) {
                module->sgdRange(p1.data(), g.data(), v1.data(), n, 0.05f, mu, wd);
                own.sgdRange(p2.data(), g.data(), v2.data(), n, 0.05f, mu, wd);
            }
            QVERIFY2(bitEqual(p1, p2) && bitEqual(v1, v2),
                     qPrintable(QString("momentum %1, weight decay %2").arg(mu).arg(wd)));
        }

        // Segments of a sparse gradient, worker 1 of 3 starting a third in.
        const std::vector<HwlSegment> segments{{0, 100, 0}, {250, 37, 100}, {400, 600, 137}};
        const auto values2 = randomVector(737, rng);
        auto p1 = randomVector(1000, rng), p2 = p1;
        auto v1 = randomVector(1000, rng), v2 = v1;
        module->sgdSegments(p1.data(), values2.data(), segments.data(), 3, v1.data(), 0.05f, 0.9f,
                            1e-4f, 1, 3);
        own.sgdSegments(p2.data(), values2.data(), segments.data(), 3, v2.data(), 0.05f, 0.9f,
                        1e-4f, 1, 3);
        QVERIFY(bitEqual(p1, p2) && bitEqual(v1, v2));
    }

    // The collectives' mean in rank order (collective/rankmean.h) gives the
    // built-in copy's bits for 1 to 5 ranks, on random values and on the
    // edges the two-rank float path must hand to the double formula (zeros,
    // the smallest normals, subnormals, the largest floats, infinities,
    // NaN), over a range that starts and ends inside a block.
    void rankMeanIsBitEqual_data() { levels_data(); }
    void rankMeanIsBitEqual() {
        QFETCH(QString, level);
        LOAD_MODULE(module, level);
        const HwlCpuKernels& own = builtinCpuKernels();
        std::mt19937 rng(11);
        const std::int64_t total = 3000, begin = 7, end = 2901;
        const float edges[] = {0.0f,      -0.0f,      1.0f,    -1.0f,    FLT_MIN,
                               -FLT_MIN,  1e-40f,     FLT_MAX, -FLT_MAX, 3.0f * FLT_MIN,
                               HUGE_VALF, -HUGE_VALF, NAN,     1e30f,    -1e-30f};
        std::vector<std::vector<float>> ranks(5);
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            ranks[r] = randomVector(std::size_t(total), rng);
            // Ranks 0 and 1 meet every pair of edges; the others shift them.
            const std::size_t e = std::size(edges);
            for (std::size_t i = 0; i < e; ++i)
                for (std::size_t j = 0; j < e; ++j)
                    ranks[r][std::size_t(begin) + 100 + i * e + j] =
                        edges[((r % 2 ? j : i) + r / 2) % e];
        }
        const float* inputs[] = {ranks[0].data(), ranks[1].data(), ranks[2].data(), ranks[3].data(),
                                 ranks[4].data()};
        for (std::uint32_t n = 1; n <= 5; ++n) {
            std::vector<float> got(std::size_t(total), 3.0f), want(got);
            module->meanInRankOrder(inputs, n, begin, end, got.data());
            own.meanInRankOrder(inputs, n, begin, end, want.data());
            QVERIFY2(bitEqual(got, want), qPrintable(QString("%1 ranks").arg(n)));
            QCOMPARE(got[0], 3.0f); // outside the range: untouched
            // And it is the mean: an ordinary element by the formula.
            double sum = 0;
            for (std::uint32_t r = 0; r < n; ++r)
                sum += double(ranks[r][std::size_t(end - 1)]);
            QCOMPARE(got[std::size_t(end - 1)], float(sum / n));
        }
    }

    // A whole serial run, dense and sparse, with each: the same loss to the
    // products' rounding.
    void wholeRunPerKernels_data() { levels_data(); }
    void wholeRunPerKernels() {
        QFETCH(QString, level);
        LOAD_MODULE(module, level);
        Q_UNUSED(module);
        const QStringList common{"--mode", "serial", "--epochs", "2", "--seed", "3"};
        const QStringList dense =
            common + QStringList{"--dataset", "teacher:3000x40:5", "--model", "mlp:40-64-5"};
        const QStringList sparse = common + QStringList{"--dataset", "sparse-bow:3000x500:4:12",
                                                        "--model", "embedding-bag:500-16-4"};
        for (const QStringList& args : {dense, sparse}) {
            const Run own = engine(args, {"HWL_CPU_KERNELS=builtin"});
            const Run mod = engine(args, {"HWL_CPU_KERNELS=" + level});
            QVERIFY2(own.code == 0, qPrintable(own.describe()));
            QVERIFY2(mod.code == 0, qPrintable(mod.describe()));
            const double a = finalLoss(own), b = finalLoss(mod);
            QVERIFY2(std::isfinite(a) && std::isfinite(b), qPrintable(own.out + mod.out));
            QVERIFY2(std::fabs(a - b) <= 1e-3 * std::max(1.0, std::fabs(a)),
                     qPrintable(QString("%1 built in, %2 %3").arg(a).arg(b).arg(level)));
        }
    }

    // --version says what runs; the default follows the processor (a
    // portable build takes the widest module it runs, a native build its
    // own copy); HWL_CPU_MAX_LEVEL pretends to be an older processor.
    void versionSaysWhichKernels() {
        const Run r = engine({"--version"}, {});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const int level = cpuLevel();
        QString expected;
        if (test::kNativeBuild)
            expected = "CPU kernels: native (";
        else if (level >= 3 && !builtModules().isEmpty())
            expected = QString("CPU kernels: x86-64-v%1 (").arg(std::min(level, 4));
        else
            expected = "CPU kernels: x86-64-v2 (SSE4.2), built in";
        QVERIFY2(r.out.contains(expected), qPrintable(expected + "\n" + r.describe()));
        QVERIFY2(r.out.contains(QString("this processor runs up to x86-64-v%1").arg(level)),
                 qPrintable(r.describe()));
        if (test::kNativeBuild || builtModules().isEmpty() || level < 4)
            return;
        const Run capped = engine({"--version"}, {"HWL_CPU_MAX_LEVEL=3"});
        QVERIFY2(capped.out.contains("CPU kernels: x86-64-v3 (AVX2 and FMA), /"),
                 qPrintable(capped.describe()));
        const Run old = engine({"--version"}, {"HWL_CPU_MAX_LEVEL=2"});
        QVERIFY2(old.out.contains("CPU kernels: x86-64-v2 (SSE4.2), built in;"),
                 qPrintable(old.describe()));
    }

    // What cannot be had is refused before anything runs, in one line.
    void refusals() {
        const QStringList run{"--dataset", "teacher:200x4:2", "--model",
                              "mlp:4-2",   "--epochs",        "1"};
        const Run unknown = engine(run, {"HWL_CPU_KERNELS=avx9000"});
        QCOMPARE(unknown.code, 2);
        QVERIFY2(unknown.err.contains("error: HWL_CPU_KERNELS=avx9000: unknown kernels (the "
                                      "choices are builtin, x86-64-v3, x86-64-v4); unset "
                                      "HWL_CPU_KERNELS to let the engine choose"),
                 qPrintable(unknown.describe()));
        const Run tooNew = engine(run, {"HWL_CPU_KERNELS=x86-64-v3", "HWL_CPU_MAX_LEVEL=2"});
        QCOMPARE(tooNew.code, 2);
        QVERIFY2(tooNew.err.contains("error: HWL_CPU_KERNELS=x86-64-v3: this processor runs up "
                                     "to x86-64-v2, not x86-64-v3"),
                 qPrintable(tooNew.describe()));
        QVERIFY(tooNew.out.isEmpty());
    }

    // A portable build's engine on a processor without SSE4.2 says so
    // instead of dying of SIGILL (HWL_CPU_MAX_LEVEL=1 pretends).
    void portableEngineOnAnOldProcessor() {
        if (test::kNativeBuild)
            QSKIP("a native build (HWL_NATIVE=ON) is for this machine: no baseline check");
        const Run r = engine({"--version"}, {"HWL_CPU_MAX_LEVEL=1"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.startsWith("error: this processor lacks SSE4.2 and POPCNT (x86-64-v2)"),
                 qPrintable(r.describe()));
        QVERIFY(r.out.isEmpty());
    }

    // The portable engine holds no AVX (no ymm or zmm register), a v3 module
    // no AVX-512, and each module exports its table alone.
    void instructionSetsStayApart() {
        if (builtModules().isEmpty())
            QSKIP("a sanitizer or fuzz build: it makes no CPU kernel modules, and its runtime, "
                  "linked into the engine, brings code for any processor");
        const QString objdump = QStandardPaths::findExecutable("objdump");
        const QString nm = QStandardPaths::findExecutable("nm");
        if (objdump.isEmpty() || nm.isEmpty())
            QSKIP("objdump or nm is not installed (apt-get install binutils)");
        auto output = [](const QString& program, const QStringList& args) {
            QProcess p;
            p.start(program, args);
            p.waitForFinished(120000);
            return QString::fromUtf8(p.readAllStandardOutput());
        };
        const QRegularExpression wide(R"(%[yz]mm\d)"), zmm(R"(%zmm\d)");
        if (!test::kNativeBuild) {
            const QString code = output(objdump, {"-d", "--no-show-raw-insn", test::kEngineBinary});
            QVERIFY2(code.size() > 100000, "objdump printed no code");
            const auto hit = wide.match(code);
            QVERIFY2(!hit.hasMatch(), qPrintable("the portable engine uses " + hit.captured(0)));
        }
        for (const QString& level : builtModules()) {
            std::string why;
            const QString dir = QFileInfo(QString::fromUtf8(test::kEngineBinary)).absolutePath();
            QString file = QString::fromUtf8(test::kEngineBinary);
            file = QFileInfo(file).dir().absoluteFilePath("../modules/libhwl_cpu_" + level + ".so");
            QVERIFY2(QFileInfo::exists(file), qPrintable(file + " (from " + dir + ")"));
            const QString symbols = output(nm, {"-D", "--defined-only", file});
            QCOMPARE(symbols.trimmed().section(' ', -1), QString("hwl_cpu_kernels"));
            QCOMPARE(symbols.trimmed().count('\n'), 0);
            if (level == "x86-64-v3") {
                const QString code = output(objdump, {"-d", "--no-show-raw-insn", file});
                QVERIFY2(wide.match(code).hasMatch(), "the x86-64-v3 module uses no AVX");
                QVERIFY2(!zmm.match(code).hasMatch(), "the x86-64-v3 module uses AVX-512");
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuKernels)
#include "tst_cpukernels.moc"
