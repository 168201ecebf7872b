#pragma once
// TensorBoardLog: one run's TensorBoard event file (--tensorboard DIR, the
// window's Run > TensorBoard logs), written as the run goes so TensorBoard
// shows a run in flight. A monitor (the command line's, the window's) hands
// it every sample it drains and the summary at the end:
//   scalars  loss/train/worker_R, divergence/worker_R, lr/worker_R (with a
//            schedule): per step sample, step = the worker's steps;
//            loss/epoch/worker_R, samples_per_second/worker_R: per epoch;
//            test/loss, test/accuracy, samples_per_second/all,
//            divergence/replicas: per evaluation, step = the epoch;
//            lost_updates/worker_R at the end; final/<figure> for each
//            figure of io/runstable.h, step = the epochs completed;
//   HParams  at the start the experiment (every field of the field table
//            as a hyper-parameter, the final/ figures as its metrics) and
//            the session's start; at the end its status (success for a
//            finished run, failure for a failed one, unknown for a stopped one).
// The file (events.out.tfevents.<seconds>.<host>.<pid>) is TFRecord framed
// (io/tfrecord.h), its records TensorBoard's Event messages
// (io/tensorboard.proto). A write that fails stops the log, not the run:
// error() says why. docs/file-formats.md describes the tags.
#include "config/experimentconfig.h"
#include "telemetry/runsummary.h"
#include "telemetry/sample.h"

#include <memory>
#include <string>

namespace hwl {

class TensorBoardLog {
public:
    /// Creates `dir` (and its parents) and a new event file in it, and writes
    /// the file's version and the HParams of `config` at once. `dir` named
    /// by `name` ("tensorboard"): InputError "tensorboard: cannot create
    /// directory "DIR": reason" and the like.
    TensorBoardLog(const std::string& dir, const ExperimentConfig& config,
                   const std::string& name = "tensorboard");
    ~TensorBoardLog();
    TensorBoardLog(const TensorBoardLog&) = delete;
    TensorBoardLog& operator=(const TensorBoardLog&) = delete;

    /// The scalars of one telemetry sample (kept in a buffer).
    void append(const Sample& s);
    /// Hands what is buffered to the system (a monitor calls it after each
    /// drain, so TensorBoard sees the run as it goes).
    void flush();
    /// The end: lost updates, the final figures and the session's status;
    /// closes the file. Nothing more is written afterwards.
    void finish(const RunSummary& summary);

    /// The event file's path.
    std::string file() const;
    /// Why writing stopped (the system's reason); empty while it works.
    std::string error() const;

private:
    struct State;
    std::unique_ptr<State> d_;
};

} // namespace hwl
