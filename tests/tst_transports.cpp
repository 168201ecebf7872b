// A data-parallel transport is a part the mode owns, listed by the value of
// `transport` it stands for (strategy/replicatransport.h). This test walks
// the recipe "Adding a transport" (docs/architecture.md): it plugs a
// transport of its own, made in this binary, in the place of threads, and
// every surface then sees it: a data-parallel run trains through it (its
// collectives, its notes), the validation runs its checks and says when it
// cannot be used, and the catalog's queries (workersAreProcesses,
// usesStartMethod, describeMode) read its traits. Then the built-in one is
// put back, and the same run trains through it again.
#include "run/run.h"
#include "strategy/catalog.h"
#include "strategy/replicatransport.h"
#include "strategy/validation.h"
#include "util/errors.h"

#include "enginetestutil.h"
#include "testutil.h"

#include <QTest>

#include <algorithm>
#include <atomic>

using namespace hwl;
using namespace hwl::test;

namespace {

std::atomic<int> gPrepared{0};
std::atomic<int> gCollectivesMade{0};

const char* const kNote = "the test's transport carried the replicas";

/// Threads over the built-in shared-memory collective, counting what the
/// mode asks of it: a transport made outside the engine.
class CountingTransport final : public ReplicaTransport {
public:
    explicit CountingTransport(const ExperimentConfig& config)
        : inner_(sharedMemoryTransport(Transport::Threads).make(config)) {}

    std::uint32_t localRanks() const override { return inner_->localRanks(); }
    std::size_t sharedBytes(const CollectiveSize& size) const override {
        return inner_->sharedBytes(size);
    }
    void prepare(RunResources& run, const CollectiveSize& size) override {
        ++gPrepared;
        inner_->prepare(run, size);
        run.notes.push_back(kNote);
    }
    std::unique_ptr<Launcher> makeLauncher() const override { return inner_->makeLauncher(); }
    std::string collectiveName() const override { return inner_->collectiveName(); }
    std::unique_ptr<Collective> makeCollective(const WorkerEnvironment& env, std::uint32_t rank,
                                               std::int64_t capacity) const override {
        ++gCollectivesMade;
        return inner_->makeCollective(env, rank, capacity);
    }
    void finish() override { inner_->finish(); }

private:
    std::unique_ptr<ReplicaTransport> inner_;
};

/// The test's entry: threads' place, two replicas at most.
TransportEntry countingEntry() {
    TransportEntry e;
    e.id = Transport::Threads;
    e.make = [](const ExperimentConfig& c) { return std::make_unique<CountingTransport>(c); };
    e.validate = [](const ExperimentConfig& c, std::vector<ConfigIssue>& issues) {
        if (c.workers > 2)
            issues.push_back({"transport", "the test's transport carries 2 replicas at most"});
    };
    return e;
}

ExperimentConfig dp() {
    ExperimentConfig c;
    c.mergeJson(R"({"mode": "data-parallel", "transport": "threads", "workers": 2, "epochs": 2,
                    "model": "mlp:20-16-4", "dataset": "teacher:1000x20:4:8"})",
                "test experiment");
    return c;
}

bool hasIssue(const ExperimentConfig& c, const std::string& field, const std::string& message) {
    const auto issues = validateExperiment(c);
    return std::any_of(issues.begin(), issues.end(), [&](const ConfigIssue& i) {
        return i.field == field && i.message == message;
    });
}

bool hasNote(const Run& run) {
    const auto& notes = run.notes();
    return std::find(notes.begin(), notes.end(), kNote) != notes.end();
}

} // namespace

class TstTransports : public QObject {
    Q_OBJECT

private slots:
    void init() {
        gPrepared = 0;
        gCollectivesMade = 0;
    }
    void cleanup() { registerTransport(sharedMemoryTransport(Transport::Threads)); }

    // The built-in transports are listed, each as what it is.
    void builtInTransportsAreListed() {
        QVERIFY(!transportEntry(Transport::Threads).processes);
        QVERIFY(transportEntry(Transport::Processes).processes);
        QVERIFY(transportEntry(Transport::Processes).startMethod);
        const TransportEntry mpi = transportEntry(Transport::Mpi);
        QVERIFY(mpi.processes && !mpi.startMethod && mpi.remoteRanks);
        QCOMPARE(QString::fromStdString(mpi.unavailable),
                 QString::fromStdString(transportUnavailable(int(Transport::Mpi))));
    }

    // Data-parallel trains through the transport in the table: its
    // collective for every replica, its notes; the same bits as the
    // built-in threads, whose collective it uses.
    void aRunGoesThroughThePluggedTransport() {
        const std::vector<float> builtIn = runToEnd(dp())->parameters();
        QCOMPARE(gCollectivesMade.load(), 0);
        registerTransport(countingEntry());
        const auto run = runToEnd(dp());
        QCOMPARE(run->summary().state, RunState::Finished);
        QCOMPARE(gPrepared.load(), 1);
        QCOMPARE(gCollectivesMade.load(), 2);
        QVERIFY(hasNote(*run));
        QCOMPARE(run->parameters(), builtIn);
        const auto remarks = run->summary().remarks;
        QVERIFY(std::any_of(remarks.begin(), remarks.end(), [](const std::string& r) {
            return r.find("replicas ended bit-identical") != std::string::npos;
        }));
        // Put back, the built-in one carries the run again.
        registerTransport(sharedMemoryTransport(Transport::Threads));
        const auto again = runToEnd(dp());
        QCOMPARE(gCollectivesMade.load(), 2);
        QVERIFY(!hasNote(*again));
    }

    // The validation runs the transport's checks, and refuses it, with its
    // reason, when this build cannot use it (the form reads the same reason).
    void validationSeesIt() {
        ExperimentConfig c = dp();
        c.workers = 3;
        const std::string mine = "the test's transport carries 2 replicas at most";
        QVERIFY(!hasIssue(c, "transport", mine));
        registerTransport(countingEntry());
        QVERIFY(hasIssue(c, "transport", mine));
        c.workers = 2;
        QVERIFY(validateExperiment(c).empty());

        TransportEntry missing = countingEntry();
        missing.unavailable = "not built: the test says so";
        registerTransport(missing);
        QCOMPARE(transportUnavailable(int(Transport::Threads)),
                 std::string("not built: the test says so"));
        QVERIFY(hasIssue(dp(), "transport",
                         "transport threads cannot be used: not built: the test says so"));
        QVERIFY_THROWS_EXCEPTION(InputError, Run{dp()});
    }

    // What the catalog says of a run comes from the transport's traits.
    void catalogReadsItsTraits() {
        ExperimentConfig c = dp();
        c.startMethod = StartMethod::Spawn;
        QVERIFY(!workersAreProcesses(c));
        QVERIFY(!usesStartMethod(c));
        QCOMPARE(describeMode(c), std::string("data-parallel (threads)"));
        TransportEntry processes = countingEntry();
        processes.processes = true;
        processes.startMethod = true;
        registerTransport(processes);
        QVERIFY(workersAreProcesses(c));
        QVERIFY(usesStartMethod(c));
        QCOMPARE(describeMode(c), std::string("data-parallel (threads, spawn)"));
        QVERIFY(Run(c).canStep());
        processes.remoteRanks = true;
        registerTransport(processes);
        QVERIFY(!Run(c).canStep());
    }
};

QTEST_GUILESS_MAIN(TstTransports)

#include "tst_transports.moc"
