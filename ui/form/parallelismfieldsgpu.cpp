// The GPU rows of the parallelism fields: where data-parallel replicas run
// (cpu | cuda), how many share a GPU, gpu-hogwild's blocks and update kind,
// the CUDA-before-fork pitfall, and the devices a child process found (this
// window's process never initialises CUDA; ExperimentForm runs the probe in
// the background and hands its answer to setGpuState()).
#include "form/parallelismfields.h"

#include "widgets/formstyle.h"

#include "config/fields.h"
#include "launch/devices.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>

#include <algorithm>

namespace hwl::ui {

void ParallelismFields::buildGpuRows(QFormLayout* form) {
    device_ = new QComboBox;
    device_->setObjectName("device");
    device_->addItem(tr("cpu"), int(Device::Cpu));
    const bool built = cudaBuilt();
    device_->addItem(built ? tr("cuda")
                           : tr("cuda (%1)").arg(QString::fromStdString(cudaNotBuiltReason())),
                     int(Device::Cuda));
    if (!built)
        if (auto* model = qobject_cast<QStandardItemModel*>(device_->model()))
            model->item(1)->setFlags(model->item(1)->flags() & ~Qt::ItemIsEnabled);
    setBaseToolTip(device_, tr("Where data-parallel replicas run: the CPU, or CUDA GPUs"));
    form->addRow(tr("Device"), device_);
    devicesNote_ = makeNoteLabel("warning");
    devicesNote_->setObjectName("devicesNote");
    form->addRow(devicesNote_);
    addErrorRow(form, "device");

    replicasPerGpu_ = makeCountSpin("replicasPerGpu", 0, int(findField("replicas-per-gpu")->max),
                                    tr("Replicas that share one GPU, batched together; the run "
                                       "uses workers / replicas-per-GPU GPUs"));
    form->addRow(tr("Replicas per GPU"), replicasPerGpu_);
    addErrorRow(form, "replicas-per-gpu");
    // Named after the mode that takes blocks, as the catalog calls it.
    QString blocksMode;
    for (const StrategyTraits* t : allStrategies())
        if (t->takes(StrategySetting::GpuBlocks))
            blocksMode = QString::fromStdString(t->name);
    blocks_ = makeCountSpin("blocks", 0, int(findField("blocks")->max),
                            tr("%1: CUDA thread blocks training at once (workers are "
                               "groups of them)")
                                .arg(blocksMode));
    form->addRow(tr("Blocks"), blocks_);
    addErrorRow(form, "blocks");
    update_ = new QComboBox;
    update_->setObjectName("update");
    update_->addItem(tr("racy"), int(UpdateKind::Racy));
    update_->addItem(tr("atomic"), int(UpdateKind::Atomic));
    setBaseToolTip(update_, tr("racy: plain loads and stores, some updates are lost (counted); "
                               "atomic: atomicAdd, none lost"));
    form->addRow(tr("Update"), update_);
    addErrorRow(form, "update");

    cudaBeforeFork_ = new QCheckBox(tr("CUDA before the workers (pitfall)"));
    cudaBeforeFork_->setObjectName("cudaBeforeFork");
    cudaBeforeFork_->setToolTip(tr("The run's process initialises CUDA first: a fork is then "
                                   "refused, because a forked child cannot use CUDA"));
    forceUnsafeFork_ = new QCheckBox(tr("Fork anyway: see CUDA fail"));
    forceUnsafeFork_->setObjectName("forceUnsafeFork");

    connect(device_, &QComboBox::currentIndexChanged, this, &ParallelismFields::onEdited);
    connect(update_, &QComboBox::currentIndexChanged, this, &ParallelismFields::onEdited);
    for (QSpinBox* spin : {replicasPerGpu_, blocks_})
        connect(spin, &QSpinBox::valueChanged, this, &ParallelismFields::onEdited);
    for (QCheckBox* check : {cudaBeforeFork_, forceUnsafeFork_})
        connect(check, &QCheckBox::toggled, this, &ParallelismFields::onEdited);
}

bool ParallelismFields::gpuOnly(const QString& name) {
    const std::vector<const StrategyTraits*> variants = variantsOf(name.toStdString());
    return !variants.empty() && std::all_of(variants.begin(), variants.end(),
                                            [](const StrategyTraits* t) { return t->cuda; });
}

void ParallelismFields::setGpuState(const QString& missing, const QString& devices) {
    gpuMissing_ = missing;
    gpuDevices_ = devices;
    showGpuItems();
    updateEnablement();
}

void ParallelismFields::showGpuItems() {
    auto* modes = qobject_cast<QStandardItemModel*>(mode_->model());
    const QString suffix = tr(" (no GPU found)");
    for (int i = 0; i < mode_->count(); ++i) {
        const QString name = mode_->itemData(i).toString();
        const StrategyTraits* t = findStrategy(name.toStdString(), true);
        if (!t)
            t = findStrategy(name.toStdString(), false);
        // Modes this build cannot run keep the catalog's reason.
        if (!gpuOnly(name) || !t || !t->unavailable.empty())
            continue;
        const bool off = !gpuMissing_.isEmpty();
        mode_->setItemText(i, QString::fromStdString(t->label) + (off ? suffix : QString()));
        mode_->setItemData(i, off ? gpuMissing_ : QString::fromStdString(t->help), Qt::ToolTipRole);
        if (QStandardItem* item = modes ? modes->item(i) : nullptr)
            item->setFlags(off ? item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable)
                               : item->flags() | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    }
    if (!cudaBuilt())
        return;
    const int cuda = device_->findData(int(Device::Cuda));
    const bool off = !gpuMissing_.isEmpty();
    device_->setItemText(cuda, tr("cuda") + (off ? suffix : QString()));
    device_->setItemData(cuda, off ? gpuMissing_ : QString(), Qt::ToolTipRole);
    if (auto* model = qobject_cast<QStandardItemModel*>(device_->model()))
        if (QStandardItem* item = model->item(cuda))
            item->setFlags(off ? item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable)
                               : item->flags() | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
}

void ParallelismFields::setGpuConfig(const ExperimentConfig& c) {
    device_->setCurrentIndex(device_->findData(int(c.device)));
    replicasPerGpu_->setValue(c.replicasPerGpu);
    blocks_->setValue(c.blocks);
    update_->setCurrentIndex(update_->findData(int(c.update)));
    cudaBeforeFork_->setChecked(c.cudaBeforeFork);
    forceUnsafeFork_->setChecked(c.forceUnsafeFork);
}

void ParallelismFields::readGpuEditors(ExperimentConfig& c) const {
    c.device = Device(device_->currentData().toInt());
    c.replicasPerGpu = replicasPerGpu_->value();
    c.blocks = blocks_->value();
    c.update = UpdateKind(update_->currentData().toInt());
    c.cudaBeforeFork = cudaBeforeFork_->isChecked();
    c.forceUnsafeFork = forceUnsafeFork_->isChecked();
}

void ParallelismFields::updateGpuNotes(const StrategyTraits* t) {
    const StrategyTraits* chosen = strategy();
    // The devices, once a GPU mode is chosen, as the background probe found
    // them (a child process looks: this one never initialises CUDA). With
    // none, the form shows why as the chosen mode's error.
    QString note;
    const bool gpuChosen = chosen && chosen->cuda;
    if (gpuChosen && gpuMissing_.isEmpty() && chosen->unavailable.empty()) {
        note = gpuDevices_.isEmpty() ? tr("Looking for CUDA devices…") : gpuDevices_;
    } else if (!cudaBuilt() && device_->currentIndex() == 1 && t &&
               t->takes(StrategySetting::Device)) {
        note = QString::fromStdString(cudaNotBuiltReason());
    }
    setNote(devicesNote_, note);
    // Under the list only where a GPU is a choice (data-parallel's device):
    // four amber lines under thread Hogwild would be noise. The disabled
    // modes' own text and tooltip say it everywhere.
    const bool offersGpu = chosen && chosen->takes(StrategySetting::Device);
    setNote(gpuNote_, gpuChosen || !offersGpu ? QString() : gpuMissing_);
}

} // namespace hwl::ui
