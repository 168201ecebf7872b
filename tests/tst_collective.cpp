// The pieces of data-parallel training on their own: the shared-memory
// collective (mean in rank order, the same bits on every rank, votes,
// broadcasts, chunking, a dead peer ending a wait), DDP's buckets, the
// DistributedSampler epoch plan (and a GPU's replicas' rows from one
// shuffle), the layout check between ranks, and what
// mpirun's log says about the rank that ended first.
#include "collective/allreduceupdate.h"
#include "collective/buckets.h"
#include "collective/rankmean.h"
#include "collective/shmcollective.h"
#include "cuda/cuda.h"
#include "model/model.h"
#include "mpi/mpirunlog.h"
#include "strategy/devicestrategy.h"
#include "telemetry/telemetry.h"
#include "train/epochplan.h"
#include "train/keepgoing.h"

#include <QTest>

#include <csignal>

#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <thread>
#include <vector>

#include <sys/prctl.h>
#include <sys/wait.h>

using namespace hwl;

namespace {

/// Runs body(rank, collective, keepGoing) on `ranks` threads over one
/// collective of `capacity` floats.
void onRanks(std::uint32_t ranks, std::int64_t capacity,
             const std::function<void(std::uint32_t, ShmCollective&, KeepGoing&)>& body,
             Telemetry* telemetry = nullptr) {
    Telemetry own;
    if (!telemetry) {
        own = Telemetry::create(ranks, 1);
        telemetry = &own;
    }
    const SharedSegment segment = ShmCollective::create(ranks, capacity);
    std::vector<std::thread> threads;
    for (std::uint32_t r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            ShmCollective c(segment.name(), r);
            KeepGoing keepGoing(*telemetry, r, /*watchPeers=*/true);
            body(r, c, keepGoing);
        });
    for (auto& t : threads)
        t.join();
}

} // namespace

class TestCollective : public QObject {
    Q_OBJECT

private slots:
    void allreduceIsTheMeanInRankOrder() {
        constexpr std::uint32_t kRanks = 3;
        constexpr std::int64_t kCount = 10000; // over capacity: three chunks
        std::vector<std::vector<float>> out(kRanks);
        std::vector<std::uint32_t> votes(kRanks);
        onRanks(kRanks, 4096, [&](std::uint32_t r, ShmCollective& c, KeepGoing& k) {
            std::vector<float> data(kCount);
            for (std::int64_t i = 0; i < kCount; ++i)
                data[std::size_t(i)] = float(std::sin(double(i) * (r + 1))) * 1e-3f * float(r + 1);
            std::uint32_t vote = r == 1 ? 2 : r; // rank 1 proposes the most
            QVERIFY(c.allreduceMean(data.data(), kCount, k, &vote));
            votes[r] = vote;
            out[r] = data;
        });
        for (std::uint32_t r = 0; r < kRanks; ++r) {
            QCOMPARE(out[r], out[0]); // the same bits on every rank
            QCOMPARE(votes[r], 2u);
        }
        for (std::int64_t i = 0; i < kCount; ++i) {
            double sum = 0;
            for (std::uint32_t r = 0; r < kRanks; ++r)
                sum += double(float(std::sin(double(i) * (r + 1))) * 1e-3f * float(r + 1));
            QCOMPARE(out[0][std::size_t(i)], float(sum / kRanks));
        }
    }

    void broadcastsAndDistances() {
        std::vector<double> distances(2);
        std::vector<std::string> texts(2);
        onRanks(2, 4096, [&](std::uint32_t r, ShmCollective& c, KeepGoing& k) {
            std::vector<float> data(5000, float(r + 1));
            QVERIFY(c.broadcast(data.data(), 5000, 1, k));
            QCOMPARE(data[4999], 2.0f); // rank 1's
            double d = -1;
            QVERIFY(c.distanceFromMean(data.data(), 5000, d, k));
            QCOMPARE(d, 0.0); // identical data: exactly 0
            std::vector<float> own(4, r == 0 ? 0.0f : 2.0f);
            QVERIFY(c.distanceFromMean(own.data(), 4, distances[r], k));
            std::string text = r == 0 ? "rank zero's text" : "";
            QVERIFY(c.broadcastText(text, 0, k));
            texts[r] = text;
        });
        QCOMPARE(distances[0], 2.0); // sqrt(4 * 1^2): each is 1 away from the mean 1
        QCOMPARE(distances[1], 2.0);
        QCOMPARE(texts[1], std::string("rank zero's text"));
    }

    // A peer that left its loop never arrives: the wait ends instead of hanging.
    void aDeadPeerEndsTheWait() {
        Telemetry t = Telemetry::create(2, 1);
        t.failWorker(1, "worker 1 died");
        bool returned = false, ok = true;
        onRanks(
            2, 4096,
            [&](std::uint32_t r, ShmCollective& c, KeepGoing& k) {
                if (r == 1)
                    return; // dead: never calls in
                std::vector<float> data(10, 1.0f);
                ok = c.allreduceMean(data.data(), 10, k);
                returned = true;
                QCOMPARE(k.reason(), KeepGoing::Reason::PeerFailed);
            },
            &t);
        QVERIFY(returned);
        QVERIFY(!ok);
    }

    // Two ranks take rankmean.h's float path: the same bits as the double
    // formula on every pair, edge cases included (or the block falls back).
    void theMeanOfTwoIsTheDoubleFormulasInFloat() {
        std::vector<float> a, b;
        const float edges[] = {0.0f,           -0.0f,       1.0f,         -1.0f,   FLT_MIN,
                               -FLT_MIN,       FLT_MIN / 4, FLT_TRUE_MIN, FLT_MAX, -FLT_MAX,
                               3.0f * FLT_MIN, 1e-30f,      1e30f};
        for (const float x : edges)
            for (const float y : edges) {
                a.push_back(x);
                b.push_back(y);
            }
        std::uint64_t state = 42;
        const auto next = [&] { // xorshift: any bit pattern, then exponents near each other
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            return std::uint32_t(state);
        };
        while (a.size() < 2'000'000) {
            const std::uint32_t x = next();
            const std::uint32_t y =
                a.size() % 2 ? next() : (x & 0xff800000u) ^ (next() & 0x0fffffu);
            float fx = 0, fy = 0;
            std::memcpy(&fx, &x, 4);
            std::memcpy(&fy, &y, 4);
            if (std::isfinite(fx) && std::isfinite(fy)) {
                a.push_back(fx);
                b.push_back(fy);
            }
        }
        std::vector<float> out(a.size());
        const float* inputs[] = {a.data(), b.data()};
        meanInRankOrder(inputs, 2, 0, std::int64_t(a.size()), out.data());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            const float want = float((double(a[i]) + double(b[i])) * 0.5);
            differ += std::memcmp(&want, &out[i], sizeof want) != 0;
        }
        QCOMPARE(differ, std::size_t(0));
    }

    // The in-place reduction of gradient slots gives reduceMean's bits, on
    // every rank, range by range, with the vote; a slot too small is none.
    void reduceSlotIsReduceMeanInPlace() {
        for (const std::uint32_t ranks : {2u, 3u}) {
            constexpr std::int64_t kTotal = 5000;
            std::vector<std::vector<float>> inPlace(ranks), copied(ranks);
            std::vector<std::uint32_t> votes(ranks);
            const SharedSegment segment = ShmCollective::create(ranks, 4096, kTotal);
            Telemetry t = Telemetry::create(ranks, 1);
            std::vector<std::thread> threads;
            for (std::uint32_t r = 0; r < ranks; ++r)
                threads.emplace_back([&, r] {
                    ShmCollective c(segment.name(), r);
                    KeepGoing k(t, r, true);
                    QVERIFY(c.gradientSlot(kTotal + 1) == nullptr);
                    float* slot = c.gradientSlot(kTotal);
                    QVERIFY(slot != nullptr);
                    for (std::int64_t i = 0; i < kTotal; ++i)
                        slot[i] = float(std::sin(double(i) * (r + 1))) * float(r + 1);
                    const std::vector<float> mine(slot, slot + kTotal);
                    std::uint32_t vote = r;
                    // Ranges in reverse, as buckets go; one ends mid-line.
                    for (const auto& [offset, count] :
                         {std::pair<std::int64_t, std::int64_t>{3001, 1999}, {0, 3001}}) {
                        const float* mean =
                            c.reduceSlot(offset, count, k, offset ? &vote : nullptr);
                        QVERIFY(mean != nullptr);
                        inPlace[r].insert(inPlace[r].begin(), mean, mean + count);
                        const float* other = c.reduceMean(mine.data() + offset, count, k);
                        QVERIFY(other != nullptr);
                        copied[r].insert(copied[r].begin(), other, other + count);
                    }
                    votes[r] = vote;
                });
            for (auto& th : threads)
                th.join();
            for (std::uint32_t r = 0; r < ranks; ++r) {
                QCOMPARE(inPlace[r], copied[0]);
                QCOMPARE(votes[r], ranks - 1);
            }
        }
    }

    // A process rank killed while its peer spins (a spin longer than the
    // whole test) is still noticed: the spinning wait asks the liveness
    // check every 100 ms, and ends once the run names the dead rank.
    void aKilledProcessEndsASpinningWait() {
        Telemetry t = Telemetry::create(2, 1);
        const SharedSegment segment = ShmCollective::create(2, 4096, 64);
        std::fflush(nullptr);
        const pid_t child = fork();
        if (child == 0) { // rank 1: never calls in (and dies with the test)
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            for (;;)
                pause();
        }
        QVERIFY(child > 0);
        ShmCollective c(segment.name(), 0);
        c.setSpin(std::int64_t(3600) * 1'000'000'000, 20'000);
        KeepGoing k(t, 0, /*watchPeers=*/true);
        std::thread coordinator([&] { // what the run does when its worker process dies
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            kill(child, SIGKILL);
            waitpid(child, nullptr, 0);
            t.failWorker(1, "rank 1 killed by SIGKILL");
        });
        const float* mean = c.reduceSlot(0, 64, k);
        coordinator.join();
        QVERIFY(mean == nullptr);
        QCOMPARE(k.reason(), KeepGoing::Reason::PeerFailed);
    }

    // Ranks that agree on pauses at a step wait at the epoch gate through a
    // pause (pauseHere false): a rank that paused there while its peer,
    // released a moment later, went on into the next step's collective
    // left both waiting until a resume.
    void theGateDoesNotPauseAgreeingRanks() {
        Telemetry t = Telemetry::create(1, 1);
        t.setCommand(RunCommand::Pause);
        KeepGoing k(t, 0);
        std::atomic<std::uint32_t> released{0};
        std::thread coordinator([&] {
            released.store(1, std::memory_order_release);
            futexWakeAll(released);
        });
        const bool ok = k.waitUntil(
            released, [](std::uint32_t r) { return r >= 1; }, /*pauseHere=*/false);
        coordinator.join();
        QVERIFY(ok);
        QCOMPARE(k.reason(), KeepGoing::Reason::None);
        t.setCommand(RunCommand::Stop); // a stop still ends such a wait
        std::atomic<std::uint32_t> never{0};
        QVERIFY(!k.waitUntil(
            never, [](std::uint32_t r) { return r >= 1; }, false));
        QCOMPARE(k.reason(), KeepGoing::Reason::Stopped);
    }

    void bucketsAreDdps() {
        // mlp:1000-600-300-10: 0.weight 600000, 0.bias 600, 2.weight 180000,
        // 2.bias 300, 4.weight 3000, 4.bias 10 floats.
        const auto model = makeModel(parseModelSpec("mlp:1000-600-300-10"));
        const auto& layout = model->layout();
        const auto buckets = makeBuckets(layout, 2.0); // first 1 MiB = 262144 floats, then 2 MiB
        QCOMPARE(buckets.size(), std::size_t(2));
        // Reverse order: the last layers first, whole tensors, contiguous.
        QCOMPARE(buckets[0].offset + buckets[0].length, layout.total());
        // 4.bias, 4.weight, 2.bias, 2.weight, 0.bias fit the first MiB; 0.weight
        // would not, so it starts the next bucket (and fills it alone).
        QCOMPARE(buckets[0].length, std::int64_t(10 + 3000 + 300 + 180000 + 600));
        QCOMPARE(buckets[1].offset, std::int64_t(0));
        QCOMPARE(buckets[1].length, std::int64_t(600000));
        // A tiny cap: one bucket per tensor, still covering everything.
        const auto tiny = makeBuckets(layout, 1e-6, 1e-6);
        QCOMPARE(tiny.size(), layout.tensors().size());
        std::int64_t covered = 0;
        for (const auto& b : tiny)
            covered += b.length;
        QCOMPARE(covered, layout.total());
    }

    void distributedSamplerPlan() {
        // 10 rows on 3 ranks: padded to 12 (rows 0 and 1 again), 4 each.
        const StridedEpochPlan padded(10, 3, /*shuffle=*/false, /*dropLast=*/false, 1);
        std::vector<std::int64_t> rows;
        padded.rows(1, 1, rows);
        QCOMPARE(rows, (std::vector<std::int64_t>{1, 4, 7, 0}));
        QCOMPARE(padded.samplesPerEpoch(), std::uint64_t(12));
        const StridedEpochPlan dropped(10, 3, false, true, 1);
        dropped.rows(1, 2, rows);
        QCOMPARE(rows, (std::vector<std::int64_t>{2, 5, 8}));
        // Shuffled: every rank the same count, together every row.
        const StridedEpochPlan shuffled(1000, 4, true, false, 7);
        std::set<std::int64_t> seen;
        for (std::uint32_t r = 0; r < 4; ++r) {
            shuffled.rows(3, r, rows);
            QCOMPARE(rows.size(), std::size_t(250));
            seen.insert(rows.begin(), rows.end());
        }
        QCOMPARE(seen.size(), std::size_t(1000));
    }

    // A GPU's replicas take their rows in one call: one shuffle per epoch
    // (not one per replica), each replica its stride, the rows rows() gives.
    void replicasRowsComeFromOneShuffle() {
        const StridedEpochPlan plan(512, 3, /*shuffle=*/true, /*dropLast=*/false, 11);
        std::vector<std::vector<std::int64_t>> all;
        plan.ranksRows(2, 0, 3, all);
        QCOMPARE(plan.ordersDrawn(), std::uint64_t(1));
        QCOMPARE(all.size(), std::size_t(3));
        std::vector<std::int64_t> one;
        for (std::uint32_t r = 0; r < 3; ++r) {
            plan.rows(2, r, one);
            QCOMPARE(all[r], one);                     // the same rows as one rank asking alone
            QCOMPARE(all[r].size(), std::size_t(171)); // 512 padded to 513
        }
        QCOMPARE(plan.ordersDrawn(), std::uint64_t(4));
        // Interleaved by stride they are one permutation, padded with its first row.
        std::vector<std::int64_t> order;
        for (std::size_t k = 0; k < 171; ++k)
            for (std::size_t r = 0; r < 3; ++r)
                order.push_back(all[r][k]);
        QCOMPARE(order.back(), order.front());
        order.pop_back();
        QCOMPARE(std::set<std::int64_t>(order.begin(), order.end()).size(), std::size_t(512));
        // Another epoch, another order; a window of ranks is their strides.
        plan.ranksRows(3, 1, 2, all);
        QCOMPARE(plan.ordersDrawn(), std::uint64_t(5));
        plan.rows(3, 2, one);
        QCOMPARE(all[1], one);
        plan.rows(2, 2, one);
        QVERIFY(all[1] != one);
        // The device's 32-bit copy: every replica one length.
        const auto device = replicaRows(plan, 2, 3);
        QCOMPARE(cuda::commonRowCount(device, 3), std::int64_t(171));
        plan.rows(2, 2, one);
        QCOMPARE(std::vector<std::int64_t>(device[2].begin(), device[2].end()), one);
    }

    // The device keeps replicas x length rows: vectors of other lengths, or
    // too few of them, are refused by name instead of read past their end.
    void unequalReplicaRowsAreRefused() {
        const std::vector<std::vector<std::int32_t>> rows{std::vector<std::int32_t>(171),
                                                          std::vector<std::int32_t>(171),
                                                          std::vector<std::int32_t>(170)};
        QCOMPARE(cuda::commonRowCount({rows[0], rows[1]}, 2), std::int64_t(171));
        try {
            cuda::commonRowCount(rows, 3);
            QFAIL("unequal rows accepted");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("epoch rows: replica 2 has 170 rows, replica 0 has 171: every "
                                 "replica takes the same number of steps, so they must be equal"));
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cuda::commonRowCount(rows, 4));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cuda::commonRowCount({}, 0));
    }

    void layoutDifferencesAreNamed() {
        const auto a = makeModel(parseModelSpec("mlp:20-32-4"));
        const auto b = makeModel(parseModelSpec("mlp:20-16-4"));
        QVERIFY(layoutDifference(a->layout(), layoutSignature(a->layout())).empty());
        const std::string why = layoutDifference(b->layout(), layoutSignature(a->layout()));
        QVERIFY2(why.find("tensor 0: rank 0 has 0.weight[32x20]@0, this rank 0.weight[16x20]@0") !=
                     std::string::npos,
                 why.c_str());
    }

    // Through the data-parallel rule's start: the rank whose model differs
    // says what differs; the others say why they stop.
    void mismatchedLayoutsAreRefusedByName() {
        const auto a = makeModel(parseModelSpec("mlp:20-32-4"));
        const auto b = makeModel(parseModelSpec("mlp:20-16-4"));
        Telemetry t = Telemetry::create(2, 1);
        std::vector<char> started(2, 1); // not vector<bool>: each rank writes its own element
        const SharedSegment segment = ShmCollective::create(2, 4096);
        std::vector<std::thread> threads;
        for (std::uint32_t r = 0; r < 2; ++r)
            threads.emplace_back([&, r] {
                const Model& m = r == 0 ? *a : *b;
                AllreduceSettings settings;
                settings.layout = &m.layout();
                settings.buckets = makeBuckets(m.layout(), 25);
                auto rule = makeAllreduceUpdate(std::make_unique<ShmCollective>(segment.name(), r),
                                                settings, t, r);
                std::vector<float> params(std::size_t(m.layout().total()));
                KeepGoing keepGoing(t, r, true);
                started[r] = rule->start(params.data(), keepGoing);
            });
        for (auto& th : threads)
            th.join();
        QVERIFY(!started[0] && !started[1]);
        QVERIFY2(t.failureText(1).find("rank 1's model differs from rank 0's: tensor 0: rank 0 "
                                       "has 0.weight[32x20]@0, this rank 0.weight[16x20]@0") == 0,
                 t.failureText(1).c_str());
        QVERIFY2(t.failureText(0).find("another rank's model differs") == 0,
                 t.failureText(0).c_str());
    }
    // Open MPI's words, as its 4.1 printed them here: when mpirun ends the
    // job before rank 0 sees a rank go, the run names the rank from them.
    void mpirunLogNamesTheFirstRankDown() {
        const std::string rule(74, '-');
        const std::string killed =
            rule +
            "\nPrimary job  terminated normally, but 1 process returned\na non-zero exit "
            "code. Per user-direction, the job has been aborted.\n" +
            rule + "\n" + rule +
            "\nAn MPI communication peer process has unexpectedly disconnected.\n" + rule + "\n" +
            rule +
            "\nmpirun noticed that process rank 2 with PID 0 on node vm exited on signal 9 "
            "(Killed).\n" +
            rule + "\n";
        const auto [rank, status] = firstRankDown(killed);
        QCOMPARE(rank, 2);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), SIGKILL);
        QVERIFY2(mpirunWords(killed).find("Primary job ") == 0, mpirunWords(killed).c_str());

        const std::string exited =
            rule +
            "\nmpirun detected that one or more processes exited with non-zero status, "
            "thus causing\nthe job to be terminated. The first process to do so "
            "was:\n\n  Process name: [[40815,1],1]\n  Exit code:    3\n" +
            rule + "\n";
        const auto [rank2, status2] = firstRankDown(exited);
        QCOMPARE(rank2, 1);
        QVERIFY(WIFEXITED(status2));
        QCOMPARE(WEXITSTATUS(status2), 3);

        QCOMPARE(firstRankDown(rule +
                               "\nmpirun was unable to launch the specified "
                               "application\n" +
                               rule + "\n"),
                 (std::pair<int, int>{-1, 0}));
        QCOMPARE(firstRankDown(""), (std::pair<int, int>{-1, 0}));
    }
};

QTEST_GUILESS_MAIN(TestCollective)
#include "tst_collective.moc"
