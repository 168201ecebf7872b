#pragma once
// The "Parallelism" group of the experiment form: the mode, and the fields
// modes take (workers, start method, share, on-worker-failure; data-parallel:
// transport, sync-every, bucket size, drop-last; over MPI: the hostfile,
// more mpirun arguments and how the ranks reduce) plus the data split and
// shuffle. Everything mode-specific comes from the engine's
// strategy catalog: the mode list (labels, tooltips, the modes this build
// cannot run shown disabled with the reason), which fields each mode shows
// (the rows of options a mode does not take are hidden) and enables, and the
// worker count a mode fixes. The pitfalls and the data-parallel tuning
// (bucket cap, drop-last) sit behind an "Advanced" toggle, open or closed as
// the user left it (QSettings "form/advancedOpen"), opened by an experiment
// that sets one of them. GUI thread only.
#include "config/experimentconfig.h"
#include "strategy/catalog.h"

#include <QGroupBox>
#include <QMap>
#include <QString>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLayout;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace hwl::ui {

class ParallelismFields : public QGroupBox {
    Q_OBJECT
public:
    explicit ParallelismFields(QWidget* parent = nullptr);

    /// Shows the config's mode, workers, start method, share, failure
    /// policy, split and shuffle (without emitting edited()).
    void setConfig(const ExperimentConfig& c);
    /// Writes those fields into `c`: a field the mode does not take gets its
    /// default (the field table's setting), a mode that fixes the worker
    /// count gets it (settleWorkerCount).
    void apply(ExperimentConfig& c) const;

    /// The strategy the mode combo and the share box select (null for an
    /// unknown mode name).
    const StrategyTraits* strategy() const;
    /// The editor of a field (JSON name), or nullptr.
    QWidget* fieldWidget(const QString& field) const;
    /// The red labels under the fields, by JSON name.
    const QMap<QString, QLabel*>& errorLabels() const { return errorLabels_; }
    QLabel* workersWarning() const { return workersWarning_; }
    QLabel* shareWarning() const { return shareWarning_; }
    QLabel* startMethodNote() const { return startNote_; }

    /// What the GPU probe found (ExperimentForm::setGpuAvailability): an
    /// empty `missing` makes the GPU modes usable (`devices`, when known,
    /// lists them under the device field); otherwise `missing` is the
    /// sentence why not: the GPU-only modes and the cuda device are then
    /// listed disabled with it as their tooltip, and it shows under the
    /// mode list while another mode is chosen (the form shows it as the
    /// error of a chosen GPU mode).
    void setGpuState(const QString& missing, const QString& devices);
    /// Whether mode `name` runs only on a GPU (every variant is a CUDA one).
    static bool gpuOnly(const QString& name);

signals:
    /// Any edit by the user (or programmatic, not by setConfig()).
    void edited();

private:
    void buildModeRows(QFormLayout* form);
    void buildProcessRows(QFormLayout* form);
    void buildDataRows(QFormLayout* form);
    void buildReplicaRows(QFormLayout* form);
    void buildMpiRows(QFormLayout* form);
    // The GPU rows (parallelismgpu.cpp): device, replicas per GPU, blocks,
    // update, the CUDA-before-fork pitfall, and the devices found.
    void buildGpuRows(QFormLayout* form);
    // The Advanced rows, behind a toggle (after the others): bucket cap,
    // drop-last, the pitfalls (spawn before share, loader workers, CUDA
    // before fork).
    void buildAdvancedRows(QFormLayout* form);
    void setAdvancedOpen(bool open);
    void setGpuConfig(const ExperimentConfig& c);
    /// Every editor's value into `c` as it stands, before the mode's rules
    /// (apply() keeps a field the mode does not take at its default).
    void readEditors(ExperimentConfig& c) const;
    void readGpuEditors(ExperimentConfig& c) const;
    /// The devices found and why the GPU modes are off, under their rows.
    void updateGpuNotes(const StrategyTraits* t);
    /// The editors by field key (the field table's names).
    void listEditors();
    /// The mode list's and the device list's GPU items as gpuMissing_ says.
    void showGpuItems();
    void addErrorRow(QFormLayout* form, const char* field);
    void onModeChanged();
    void onEdited();
    void updateEnablement();
    /// Shows and enables the rows whose field applies to the experiment the
    /// editors make (fieldApplies), hides the others (a hidden field keeps
    /// its value; apply() writes the default for it).
    void showModeRows(const ExperimentConfig& read);
    QString modeName() const;

    QComboBox* mode_ = nullptr;
    QSpinBox* workers_ = nullptr;
    QLabel* workersWarning_ = nullptr;
    QComboBox* startMethod_ = nullptr;
    QLabel* startNote_ = nullptr;
    QCheckBox* share_ = nullptr;
    QCheckBox* lostUpdates_ = nullptr;
    QCheckBox* spawnBeforeShare_ = nullptr; ///< the pitfall: workers open a segment never made
    QSpinBox* loaderWorkers_ = nullptr;     ///< the pitfall: processes inside workers
    QLabel* shareWarning_ = nullptr;
    QComboBox* failure_ = nullptr;
    QComboBox* split_ = nullptr;
    QCheckBox* shuffle_ = nullptr;
    QComboBox* transport_ = nullptr;
    QSpinBox* syncEvery_ = nullptr;
    QDoubleSpinBox* bucketMb_ = nullptr;
    QCheckBox* dropLast_ = nullptr;
    QLineEdit* hostfile_ = nullptr; ///< transport mpi
    QWidget* hostfileBrowse_ = nullptr;
    QLayout* hostfileRow_ = nullptr;  ///< the hostfile edit and its browse button
    QLineEdit* mpirunArgs_ = nullptr; ///< transport mpi
    QComboBox* reduce_ = nullptr;     ///< transport mpi: Open MPI's collectives or exact
    QComboBox* device_ = nullptr;
    QSpinBox* replicasPerGpu_ = nullptr;
    QSpinBox* blocks_ = nullptr;
    QComboBox* update_ = nullptr;
    QCheckBox* cudaBeforeFork_ = nullptr;
    QCheckBox* forceUnsafeFork_ = nullptr;
    QLabel* devicesNote_ = nullptr; ///< the CUDA devices, or that the probe is looking
    QLabel* gpuNote_ = nullptr;     ///< under the mode list: why the GPU modes are off
    QString gpuMissing_;            ///< why no GPU mode can run here; empty: they can (or unknown)
    QString gpuDevices_;            ///< the devices the probe found; empty: not known yet
    QToolButton* advanced_ = nullptr; ///< opens and closes the Advanced rows
    QMap<QString, QLabel*> errorLabels_;
    QMap<QString, QWidget*> editors_; ///< by field key
    QString shownMode_;
    int workersBeforeFixed_ = 0; ///< the count before a mode fixed it (serial)
    bool filling_ = false;
};

} // namespace hwl::ui
