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
//   HParams  at the start the session's start (the value of every field of
//            the field table but out and tensorboard); at the end its
//            status (success for a finished run, failure for a failed one,
//            unknown for a stopped one). The experiment these sessions
//            belong to, and the custom_scalars layout, are the logdir's
//            (io/tensorboardlogdir.h).
// The file (events.out.tfevents.<seconds>.<host>.<pid>) goes into a folder
// of the run's own in the logdir (io/tensorboardlogdir.h names it). It is
// TFRecord framed (io/tfrecord.h), its records TensorBoard's Event messages
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
    /// Creates the logdir `logdir` (and its parents), a run folder in it and
    /// a new event file in that, writes the logdir's experiment where it has
    /// none yet, and the file's version and the session's start at once.
    /// `logdir` named by `name` ("tensorboard"): InputError "tensorboard:
    /// cannot create directory "DIR": reason" and the like.
    TensorBoardLog(const std::string& logdir, const ExperimentConfig& config,
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

    /// The event file's path: runFolder()/events.out.tfevents...
    std::string file() const;
    /// The logdir, as given.
    std::string logdir() const;
    /// The run's own folder in the logdir.
    std::string runFolder() const;
    /// Why writing stopped (the system's reason); empty while it works.
    std::string error() const;
    /// What opening the logdir settled (a damaged experiment file replaced);
    /// empty when nothing.
    const std::string& note() const;

private:
    struct State;
    std::unique_ptr<State> d_;
};

} // namespace hwl
