// The lost-update counter (--lost-updates): the counted update writes what
// the plain one writes and counts one write per block it touches; under the
// lock none is lost; Hogwild on a small vocabulary loses some, out of the
// same number of writes as the locked run; modes that cannot count refuse it.
#include "backend/cpu/cpubackend.h"
#include "data/datasources.h"
#include "model/embeddingbag.h"
#include "optim/hogwild.h"
#include "run/run.h"
#include "store/parameterstore.h"

#include "testutil.h"

#include <QTest>

#include <numeric>
#include <set>
#include <thread>

using namespace hwl;
using hwl::test::runToEnd;

namespace {
/// A small vocabulary: every step's batch uses most of the table's 12 rows,
/// so concurrent workers write the same blocks all the time.
ExperimentConfig smallVocabulary(const char* mode) {
    ExperimentConfig c;
    c.model = "embedding-bag:12-16-4";
    c.dataset = "sparse-bow:6000x12:4:6";
    c.mode = mode;
    c.workers = 4;
    c.epochs = 4;
    c.batch = 8;
    c.lr = 0.1;
    c.momentum = 0;
    c.testFraction = 0.1;
    c.lostUpdates = true;
    return c;
}

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
    return std::accumulate(v.begin(), v.end(), std::uint64_t(0));
}
} // namespace

class TestLostUpdates : public QObject {
    Q_OBJECT

private slots:
    void countedUpdateWritesWhatThePlainOneWrites() {
        const ModelSpec spec = parseModelSpec("embedding-bag:50-12-4"); // rows straddle blocks
        EmbeddingBag model(spec);
        const Dataset data = makeSparseBow(64, 50, 4, 5, 9);
        std::vector<float> plain(std::size_t(model.layout().total()));
        model.initialize(plain.data(), 3);
        std::vector<float> counted = plain;
        ParameterStore store = ParameterStore::onHeap(model.layout().total(), {.versions = true});
        QVERIFY(store.versions() != nullptr);
        const SgdSettings sgd{0.5f, 0, 0.01f};
        const auto kernel = cpuBackend().makeKernel(model, data.view(), sgd, 1, 3);
        std::vector<std::int64_t> rows{3, 17, 40, 41};
        kernel->lossAndGradient(plain.data(), rows.data(), 4);
        hogwild::UpdateTally tally;
        kernel->countedUpdate(counted.data(), store.versions(), tally);
        kernel->update(plain.data(), UpdateAccess::Shared);
        QCOMPARE(counted, plain);

        std::set<std::int64_t> blocks;
        for (const auto& seg : kernel->gradient().segments)
            for (std::int64_t i = seg.offset; i < seg.offset + seg.length; ++i)
                blocks.insert(i / hogwild::kVersionBlock);
        // Two segments can share a block (rows of 12 floats): each write counts.
        std::uint64_t perSegment = 0;
        for (const auto& seg : kernel->gradient().segments)
            perSegment += std::uint64_t((seg.offset + seg.length - 1) / hogwild::kVersionBlock -
                                        seg.offset / hogwild::kVersionBlock + 1);
        QCOMPARE(tally.writes, perSegment);
        QVERIFY(tally.writes >= blocks.size());
        QCOMPARE(tally.lost, std::uint64_t(0)); // nobody else wrote
        std::uint64_t advanced = 0;
        for (std::int64_t b = 0; b < hogwild::versionBlocks(store.size()); ++b)
            advanced += store.versions()[b];
        QCOMPARE(advanced, tally.writes);
    }

    void sharedStoreCarriesTheVersions() {
        ParameterStore store =
            ParameterStore::inSharedMemory(1000, "lost-update-test", {.versions = true});
        std::fill(store.data(), store.data() + 1000, 1.0f);
        store.versions()[hogwild::versionBlocks(1000) - 1] = 7;
        const ParameterStore opened =
            ParameterStore::open(store.segmentName(), 1000, {.versions = true});
        QCOMPARE(opened.data()[999], 1.0f);
        ParameterStore again = ParameterStore::open(store.segmentName(), 1000, {.versions = true});
        QCOMPARE(again.versions()[hogwild::versionBlocks(1000) - 1], 7u);
        // A worker that expects no versions sees the size mismatch, named.
        try {
            ParameterStore::open(store.segmentName(), 1000, {});
            QFAIL("a store with versions opened as one without");
        } catch (const std::exception& e) {
            QVERIFY2(QString(e.what()).contains("4000"), e.what());
        }
    }

    void lockedLosesNone() {
        auto run = runToEnd(smallVocabulary("threads-locked"));
        const RunSummary s = run->summary();
        QCOMPARE(s.state, RunState::Finished);
        QCOMPARE(s.updateWrites.size(), std::size_t(4));
        for (std::size_t r = 0; r < 4; ++r)
            QVERIFY(s.updateWrites[r] > 0);
        QCOMPARE(sum(s.lostUpdates), std::uint64_t(0));
    }

    void hogwildOnASmallVocabularyLosesSome_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("threads") << "threads";
        QTest::newRow("processes") << "processes";
    }
    void hogwildOnASmallVocabularyLosesSome() {
        QFETCH(QString, mode);
        if (std::thread::hardware_concurrency() < 2)
            QSKIP("one CPU: workers never write at the same time");
        const RunSummary locked = runToEnd(smallVocabulary("threads-locked"))->summary();
        // Which writes overlap depends on the scheduler; over ~10^5 block
        // writes on two or more CPUs some always do. Three tries keep a
        // starved machine from failing the test.
        std::uint64_t lost = 0;
        for (int attempt = 0; attempt < 3 && lost == 0; ++attempt) {
            const RunSummary s = runToEnd(smallVocabulary(qPrintable(mode)))->summary();
            QCOMPARE(s.state, RunState::Finished);
            // The same batches touch the same blocks: as many writes as locked.
            QCOMPARE(sum(s.updateWrites), sum(locked.updateWrites));
            lost = sum(s.lostUpdates);
            QVERIFY(lost <= sum(s.updateWrites));
        }
        QVERIFY2(lost > 0, "no write of 4 Hogwild workers on 12 table rows overlapped another");
    }

    void nothingIsCountedWithoutTheFlag() {
        ExperimentConfig c = smallVocabulary("threads");
        c.lostUpdates = false;
        const RunSummary s = runToEnd(c)->summary();
        QCOMPARE(s.state, RunState::Finished);
        QVERIFY(s.updateWrites.empty());
    }

    void modesThatCannotCountRefuseIt_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("share");
        QTest::newRow("serial") << "serial" << true;
        QTest::newRow("not shared") << "processes" << false;
        QTest::newRow("data-parallel") << "data-parallel" << true;
    }
    void modesThatCannotCountRefuseIt() {
        QFETCH(QString, mode);
        QFETCH(bool, share);
        ExperimentConfig c = smallVocabulary(qPrintable(mode));
        c.share = share;
        c.workers = mode == "serial" ? 1 : 2;
        bool named = false;
        for (const ConfigIssue& issue : validateExperiment(c))
            named |= issue.field == "lost-updates" &&
                     issue.message.find("threads, threads-locked") != std::string::npos;
        QVERIFY(named);
    }
};

QTEST_GUILESS_MAIN(TestLostUpdates)
#include "strategy/validation.h"
#include "tst_lostupdates.moc"
