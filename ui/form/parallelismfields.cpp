#include "form/parallelismfields.h"
#include "widgets/filedialogs.h"

#include "widgets/formstyle.h"
#include "widgets/headcombobox.h"

#include "config/fields.h"
#include "strategy/validation.h"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QToolButton>

namespace hwl::ui {

namespace {
void addItem(QComboBox* combo, const QString& text, const QVariant& data, const QString& tip) {
    combo->addItem(text, data);
    combo->setItemData(combo->count() - 1, tip, Qt::ToolTipRole);
}

void disableItem(QComboBox* combo, int index) {
    if (auto* model = qobject_cast<QStandardItemModel*>(combo->model())) {
        QStandardItem* item = model->item(index);
        item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
    }
}

/// The variant that stands for a mode name in the list: its shared one.
const StrategyTraits* listed(const std::string& name) {
    const StrategyTraits* t = findStrategy(name, true);
    return t ? t : findStrategy(name, false);
}

/// Whether the form's Advanced rows are open (the user's last choice).
const char* const kAdvancedKey = "form/advancedOpen";

int fieldMax(const char* key) {
    return int(findField(key)->max);
}
} // namespace

ParallelismFields::ParallelismFields(QWidget* parent) : QGroupBox(tr("Parallelism"), parent) {
    QFormLayout* form = makeForm(this);
    buildModeRows(form);
    buildProcessRows(form);
    buildReplicaRows(form);
    buildMpiRows(form);
    buildGpuRows(form);
    buildDataRows(form);
    buildAdvancedRows(form);
    listEditors();
    updateEnablement();
    connect(mode_, &QComboBox::currentIndexChanged, this, &ParallelismFields::onModeChanged);
    connect(workers_, &QSpinBox::valueChanged, this, &ParallelismFields::onEdited);
    connect(syncEvery_, &QSpinBox::valueChanged, this, &ParallelismFields::onEdited);
    connect(bucketMb_, &QDoubleSpinBox::valueChanged, this, &ParallelismFields::onEdited);
    for (QComboBox* combo : {startMethod_, failure_, split_, transport_, reduce_})
        connect(combo, &QComboBox::currentIndexChanged, this, &ParallelismFields::onEdited);
    connect(loaderWorkers_, &QSpinBox::valueChanged, this, &ParallelismFields::onEdited);
    for (QCheckBox* check : {share_, shuffle_, dropLast_, lostUpdates_, spawnBeforeShare_})
        connect(check, &QCheckBox::toggled, this, &ParallelismFields::onEdited);
    for (QLineEdit* line : {hostfile_, mpirunArgs_})
        connect(line, &QLineEdit::textEdited, this, &ParallelismFields::onEdited);
}

void ParallelismFields::addErrorRow(QFormLayout* form, const char* field) {
    QLabel* label = makeNoteLabel("error");
    label->setObjectName(QString::fromLatin1(field) + QStringLiteral("Error"));
    errorLabels_.insert(QString::fromLatin1(field), label);
    form->addRow(label);
}

void ParallelismFields::buildModeRows(QFormLayout* form) {
    mode_ = new HeadComboBox; // a long item shows its head, not a fragment
    mode_->setObjectName("mode");
    for (const std::string& name : modeNames()) {
        const StrategyTraits* t = listed(name);
        const bool runnable = t->unavailable.empty();
        // A mode this build cannot run says why in its visible text too.
        const std::string text = runnable ? t->label : t->label + " (" + t->unavailable + ")";
        addItem(mode_, QString::fromStdString(text), QString::fromStdString(name),
                QString::fromStdString(runnable ? t->help : t->unavailable));
        if (!runnable)
            disableItem(mode_, mode_->count() - 1);
    }
    // A mode this build lacks says why in its item ("... (not built: no
    // CUDA compiler ...)"): sized to its longest item, the combo would
    // widen the whole experiment panel past the window. The popup still
    // shows each item whole.
    mode_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    mode_->setMinimumContentsLength(24);
    mode_->view()->setMinimumWidth(mode_->view()->sizeHintForColumn(0));
    form->addRow(tr("Mode"), mode_);
    addErrorRow(form, "mode");
    gpuNote_ = makeNoteLabel("warning");
    gpuNote_->setObjectName("gpuNote");
    form->addRow(gpuNote_);

    workers_ = makeCountSpin("workers", 0, fieldMax("workers"), tr("Parallel workers"));
    form->addRow(tr("Workers"), workers_);
    workersWarning_ = makeNoteLabel("warning");
    workersWarning_->setObjectName("workersWarning");
    form->addRow(workersWarning_);
    addErrorRow(form, "workers");

    lostUpdates_ = new QCheckBox(tr("Count lost updates"));
    lostUpdates_->setObjectName("lostUpdates");
    setBaseToolTip(lostUpdates_,
                   tr("Hogwild over threads or processes (and locked, for contrast): count the "
                      "updates that overlapped another worker's update of the same 32 "
                      "parameters, where one write can replace the other unseen. Costs a "
                      "little speed"));
    form->addRow(QString(), lostUpdates_);
    addErrorRow(form, "lost-updates");
}

void ParallelismFields::buildProcessRows(QFormLayout* form) {
    startMethod_ = new QComboBox;
    startMethod_->setObjectName("startMethod");
    addItem(startMethod_, "fork", int(StartMethod::Fork),
            tr("fork() this process: fastest start, but the child inherits only the forking "
               "thread of a process that runs many"));
    addItem(startMethod_, "spawn", int(StartMethod::Spawn),
            tr("fork + exec of a fresh copy of this program: clean, a little slower"));
    addItem(startMethod_, "forkserver", int(StartMethod::Forkserver),
            tr("A single-threaded server started with the app forks each worker: fast and "
               "clean (recommended)"));
    setBaseToolTip(startMethod_, tr("How worker processes start (modes with process workers)"));
    form->addRow(tr("Start method"), startMethod_);
    startNote_ = makeNoteLabel("warning");
    startNote_->setObjectName("startMethodNote");
    form->addRow(startNote_);
    addErrorRow(form, "start-method");

    share_ = new QCheckBox(tr("Share parameters"));
    share_->setObjectName("share");
    setBaseToolTip(share_, tr("Workers update one copy in shared memory. Unchecked: each trains "
                              "a private copy (the \"forgot to share\" pitfall)"));
    form->addRow(QString(), share_);
    shareWarning_ = makeNoteLabel("warning");
    shareWarning_->setObjectName("shareWarning");
    form->addRow(shareWarning_);
    addErrorRow(form, "share");

    spawnBeforeShare_ = new QCheckBox(tr("Spawn before share (pitfall)"));
    spawnBeforeShare_->setObjectName("spawnBeforeShare");
    setBaseToolTip(spawnBeforeShare_,
                   tr("The blog's scene 2: spawn or forkserver workers are handed the name of "
                      "a parameters segment that was never made (PyTorch: share_memory() not "
                      "called before mp.spawn); each fails to open it, and the run says so"));
    loaderWorkers_ = makeCountSpin("loaderWorkers", 0, fieldMax("loader-workers"),
                                   tr("Loader processes each worker would start (PyTorch: "
                                      "DataLoader num_workers inside a worker). The pitfall: "
                                      "anything but 0 is refused at Start, saying why"));

    failure_ = new QComboBox;
    failure_->setObjectName("onWorkerFailure");
    addItem(failure_, tr("stop"), int(FailurePolicy::Stop),
            tr("Stop the other workers and fail the run"));
    addItem(failure_, tr("continue"), int(FailurePolicy::Continue),
            tr("Let the other workers finish (the dead worker's shard is skipped)"));
    setBaseToolTip(failure_, tr("What happens when a worker process dies"));
    form->addRow(tr("Worker dies"), failure_);
    addErrorRow(form, "on-worker-failure");
}

void ParallelismFields::buildReplicaRows(QFormLayout* form) {
    transport_ = new QComboBox;
    transport_->setObjectName("transport");
    addItem(transport_, QString::fromLatin1(toString(Transport::Threads)), int(Transport::Threads),
            tr("Replicas are threads of this process"));
    addItem(transport_, QString::fromLatin1(toString(Transport::Processes)),
            int(Transport::Processes),
            tr("Replicas are processes (the start method), talking through shared memory"));
    addItem(transport_, QString::fromLatin1(toString(Transport::Mpi)), int(Transport::Mpi),
            tr("MPI ranks, across machines"));
    for (int i = 0; i < transport_->count(); ++i)
        if (const std::string why = transportUnavailable(transport_->itemData(i).toInt());
            !why.empty()) {
            disableItem(transport_, i);
            transport_->setItemData(i, QString::fromStdString(why), Qt::ToolTipRole);
        }
    setBaseToolTip(transport_, tr("How data-parallel replicas talk"));
    form->addRow(tr("Transport"), transport_);
    addErrorRow(form, "transport");

    syncEvery_ = makeCountSpin("syncEvery", 0, fieldMax("sync-every"),
                               tr("1: average the gradients every step (DDP). K > 1: each "
                                  "replica takes K steps alone, then the parameters are averaged "
                                  "(local SGD); the larger K, the further they drift apart"));
    form->addRow(tr("Sync every"), syncEvery_);
    addErrorRow(form, "sync-every");

    bucketMb_ = new QDoubleSpinBox;
    bucketMb_->setObjectName("bucketMb");
    bucketMb_->setRange(0.001, findField("bucket-mb")->max);
    bucketMb_->setDecimals(3);
    bucketMb_->setSuffix(tr(" MiB"));
    bucketMb_->setToolTip(tr("The cap of a gradient bucket (DDP's bucket_cap_mb; the first "
                             "bucket is 1 MiB)"));

    dropLast_ = new QCheckBox(tr("Drop the uneven last rows"));
    dropLast_->setObjectName("dropLast");
    dropLast_->setToolTip(tr("Unchecked: each epoch is padded by wrapping around so every rank "
                             "gets as many rows (DistributedSampler)"));
}

void ParallelismFields::buildMpiRows(QFormLayout* form) {
    // The window starts mpirun itself: rank 0 on this machine, the others
    // where the hostfile says (all here without one).
    hostfile_ = new QLineEdit;
    hostfile_->setObjectName("hostfile");
    hostfile_->setPlaceholderText(tr("none: every rank on this machine"));
    hostfile_->setToolTip(tr("mpirun's --hostfile: one host per line (\"node1 slots=4\"), this "
                             "machine first (rank 0 runs here)"));
    auto* browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Choose a hostfile"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString file = filedialogs::openFile(this, tr("Hostfile"), {});
        if (!file.isEmpty()) {
            hostfile_->setText(file);
            onEdited();
        }
    });
    hostfileBrowse_ = browse;
    auto* row = new QHBoxLayout;
    row->addWidget(hostfile_, 1);
    row->addWidget(browse);
    form->addRow(tr("Hostfile"), row);
    hostfileRow_ = row;
    addErrorRow(form, "hostfile");

    mpirunArgs_ = new QLineEdit;
    mpirunArgs_->setObjectName("mpirunArgs");
    mpirunArgs_->setPlaceholderText(tr("e.g. --mca btl self,tcp"));
    mpirunArgs_->setToolTip(tr("More mpirun arguments, separated by spaces (-np comes from the "
                               "worker count)"));
    form->addRow(tr("mpirun args"), mpirunArgs_);
    addErrorRow(form, "mpirun-args");

    reduce_ = new QComboBox;
    reduce_->setObjectName("reduce");
    addItem(reduce_, tr("mpi"), int(Reduce::Mpi),
            tr("Open MPI's own collectives (an alltoallv of blocks, then an allgatherv): each "
               "rank sends and receives at most twice the gradients per step, however many "
               "ranks"));
    addItem(reduce_, tr("exact"), int(Reduce::Exact),
            tr("Through rank 0, which receives and sends every other rank's gradients each "
               "step. Both ways give the threads transport's weights bit for bit"));
    form->addRow(tr("Reduce"), reduce_);
    addErrorRow(form, "reduce");
}

void ParallelismFields::buildDataRows(QFormLayout* form) {
    split_ = new QComboBox;
    split_->setObjectName("split");
    addItem(split_, tr("shard"), int(DataSplit::Shard),
            tr("Each sample once per epoch, spread over the workers"));
    addItem(split_, tr("replicate"), int(DataSplit::Replicate),
            tr("Every worker walks the whole dataset each epoch (the blog's recipe: N workers do "
               "N times the work)"));
    form->addRow(tr("Data split"), split_);
    addErrorRow(form, "split");

    shuffle_ = new QCheckBox(tr("Shuffle every epoch"));
    shuffle_->setObjectName("shuffle");
    shuffle_->setToolTip(tr("Unchecked: visit samples in file order"));
    form->addRow(QString(), shuffle_);
    addErrorRow(form, "shuffle");
}

void ParallelismFields::buildAdvancedRows(QFormLayout* form) {
    // One click away: the pitfalls and the tuning few runs change. Open or
    // closed as the user left it (QSettings).
    advanced_ = new QToolButton;
    advanced_->setObjectName("advancedToggle");
    advanced_->setText(tr("Advanced"));
    advanced_->setCheckable(true);
    advanced_->setAutoRaise(true);
    advanced_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    advanced_->setToolTip(tr("The pitfalls and the data-parallel tuning"));
    connect(advanced_, &QToolButton::clicked, this, [this](bool open) {
        QSettings().setValue(kAdvancedKey, open);
        setAdvancedOpen(open);
    });
    form->addRow(advanced_);
    form->addRow(tr("Bucket cap"), bucketMb_);
    addErrorRow(form, "bucket-mb");
    form->addRow(QString(), dropLast_);
    addErrorRow(form, "drop-last");
    form->addRow(QString(), spawnBeforeShare_);
    addErrorRow(form, "spawn-before-share");
    form->addRow(tr("Loader workers"), loaderWorkers_);
    addErrorRow(form, "loader-workers");
    form->addRow(QString(), cudaBeforeFork_);
    addErrorRow(form, "cuda-before-fork");
    form->addRow(QString(), forceUnsafeFork_);
    addErrorRow(form, "force-unsafe-fork");
    setAdvancedOpen(QSettings().value(kAdvancedKey, false).toBool());
}

void ParallelismFields::setAdvancedOpen(bool open) {
    const QSignalBlocker block(advanced_);
    advanced_->setChecked(open);
    advanced_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    if (mode_)
        updateEnablement();
}

QString ParallelismFields::modeName() const {
    return mode_->currentData().toString();
}

const StrategyTraits* ParallelismFields::strategy() const {
    const std::string name = modeName().toStdString();
    const StrategyTraits* t = listed(name);
    if (t && t->takes(StrategySetting::Share))
        return findStrategy(name, share_->isChecked());
    if (t && t->takes(StrategySetting::Device)) {
        ExperimentConfig c;
        c.mode = name;
        c.device = Device(device_->currentData().toInt());
        return findStrategy(c);
    }
    return t;
}

void ParallelismFields::setConfig(const ExperimentConfig& c) {
    filling_ = true;
    const int index = mode_->findData(QString::fromStdString(c.mode));
    mode_->setCurrentIndex(
        index >= 0 ? index : mode_->findData(QString::fromStdString(ExperimentConfig{}.mode)));
    workers_->setValue(c.workers);
    shownMode_ = modeName();
    workersBeforeFixed_ = 0;
    startMethod_->setCurrentIndex(startMethod_->findData(int(c.startMethod)));
    share_->setChecked(c.share);
    lostUpdates_->setChecked(c.lostUpdates);
    spawnBeforeShare_->setChecked(c.spawnBeforeShare);
    loaderWorkers_->setValue(c.loaderWorkers);
    failure_->setCurrentIndex(failure_->findData(int(c.onWorkerFailure)));
    split_->setCurrentIndex(split_->findData(int(c.split)));
    shuffle_->setChecked(c.shuffle);
    transport_->setCurrentIndex(transport_->findData(int(c.transport)));
    syncEvery_->setValue(c.syncEvery);
    bucketMb_->setValue(c.bucketMb);
    dropLast_->setChecked(c.dropLast);
    hostfile_->setText(QString::fromStdString(c.hostfile));
    mpirunArgs_->setText(QString::fromStdString(c.mpirunArgs));
    reduce_->setCurrentIndex(reduce_->findData(int(c.reduce)));
    setGpuConfig(c);
    // An experiment that sets an Advanced field (a pitfall's preset) shows it.
    const ExperimentConfig d;
    for (const Field& f : experimentFields())
        if (f.advanced && editors_.contains(QLatin1String(f.key)) && f.get(c) != f.get(d))
            setAdvancedOpen(true);
    filling_ = false;
    updateEnablement();
}

void ParallelismFields::readEditors(ExperimentConfig& c) const {
    c.mode = modeName().toStdString();
    c.workers = workers_->value();
    c.startMethod = StartMethod(startMethod_->currentData().toInt());
    c.share = share_->isChecked();
    c.onWorkerFailure = FailurePolicy(failure_->currentData().toInt());
    c.lostUpdates = lostUpdates_->isChecked();
    c.spawnBeforeShare = spawnBeforeShare_->isChecked();
    c.loaderWorkers = loaderWorkers_->value();
    c.shuffle = shuffle_->isChecked();
    c.split = DataSplit(split_->currentData().toInt());
    c.transport = Transport(transport_->currentData().toInt());
    c.syncEvery = syncEvery_->value();
    c.bucketMb = bucketMb_->value();
    c.dropLast = dropLast_->isChecked();
    c.hostfile = hostfile_->text().trimmed().toStdString();
    c.mpirunArgs = mpirunArgs_->text().trimmed().toStdString();
    c.reduce = Reduce(reduce_->currentData().toInt());
    readGpuEditors(c);
}

void ParallelismFields::apply(ExperimentConfig& c) const {
    readEditors(c);
    // A field the chosen mode does not take keeps its default (the field
    // table's setting; the validator refuses it set), as a hidden row does;
    // then the count a mode fixes.
    resetInapplicableFields(
        c, [this](const Field& f) { return editors_.contains(QLatin1String(f.key)); });
    settleWorkerCount(c, false);
}

QWidget* ParallelismFields::fieldWidget(const QString& field) const {
    return editors_.value(field);
}

void ParallelismFields::listEditors() {
    editors_ = {{"mode", mode_},
                {"workers", workers_},
                {"start-method", startMethod_},
                {"share", share_},
                {"lost-updates", lostUpdates_},
                {"spawn-before-share", spawnBeforeShare_},
                {"loader-workers", loaderWorkers_},
                {"on-worker-failure", failure_},
                {"split", split_},
                {"shuffle", shuffle_},
                {"transport", transport_},
                {"sync-every", syncEvery_},
                {"bucket-mb", bucketMb_},
                {"drop-last", dropLast_},
                {"hostfile", hostfile_},
                {"mpirun-args", mpirunArgs_},
                {"reduce", reduce_},
                {"device", device_},
                {"replicas-per-gpu", replicasPerGpu_},
                {"blocks", blocks_},
                {"update", update_},
                {"cuda-before-fork", cudaBeforeFork_},
                {"force-unsafe-fork", forceUnsafeFork_}};
}

void ParallelismFields::onModeChanged() {
    if (filling_)
        return;
    // Remember the count a mode that fixes it (serial) replaces, for the way back.
    ExperimentConfig now, before;
    now.mode = modeName().toStdString();
    before.mode = shownMode_.toStdString();
    const bool fixedNow = fixedWorkerCount(now) > 0;
    const bool fixedBefore = fixedWorkerCount(before) > 0;
    if (fixedNow && !fixedBefore) {
        workersBeforeFixed_ = workers_->value();
    } else if (!fixedNow && fixedBefore) {
        const QSignalBlocker block(workers_);
        workers_->setValue(workersBeforeFixed_ > 1 ? workersBeforeFixed_ : 2);
    }
    shownMode_ = modeName();
    onEdited();
}

void ParallelismFields::onEdited() {
    if (filling_)
        return;
    updateEnablement();
    emit edited();
}

void ParallelismFields::updateEnablement() {
    ExperimentConfig read;
    readEditors(read);
    showModeRows(read);
    const StrategyTraits* t = listed(modeName().toStdString());
    const int fixed = fixedWorkerCount(read);
    if (fixed > 0 && workers_->value() != fixed) {
        const QSignalBlocker block(workers_);
        workers_->setValue(fixed);
    }
    setBaseToolTip(workers_, fixed > 0 ? tr("This mode runs exactly %1 worker(s); choose another "
                                            "mode for more")
                                             .arg(fixed)
                                       : tr("Parallel workers, 1..%1").arg(fieldMax("workers")));
    // Process workers this app starts: not threads, nor MPI ranks.
    ExperimentConfig chosen;
    apply(chosen);
    const bool startsProcesses = usesStartMethod(chosen);
    startMethod_->setEnabled(startsProcesses);
    hostfileBrowse_->setEnabled(hostfile_->isEnabled());
    updateGpuNotes(t);

    const int cores = QThread::idealThreadCount();
    const int workers = workers_->value();
    setNote(workersWarning_, workers > cores ? tr("%1 workers on %2 cores: they will time-share "
                                                  "the CPUs")
                                                   .arg(workers)
                                                   .arg(cores)
                                             : QString());
    const StrategyTraits* mode = strategy();
    setNote(shareWarning_,
            mode && mode->takes(StrategySetting::Share) && !mode->share
                ? tr("Not shared: each worker trains a private copy; the test accuracy (measured "
                     "on the parent's copy) will not move and the exported model is the initial "
                     "one.")
                : QString());
    const bool fork =
        startsProcesses && StartMethod(startMethod_->currentData().toInt()) == StartMethod::Fork;
    setNote(startNote_, fork ? tr("fork() from this multi-threaded GUI process: each child gets "
                                  "only the forking thread; forkserver avoids that.")
                             : QString());
}

void ParallelismFields::showModeRows(const ExperimentConfig& read) {
    // Each editor as the field table says: shown and enabled where its
    // field applies to the chosen mode (fieldApplies), an Advanced one only
    // while the Advanced rows are open. The worker count stays in sight,
    // greyed, where the mode fixes it; so does a field that Share parameters
    // turns on (Count lost updates): ticking the box must not insert a row
    // above it and move it from under the pointer.
    auto* form = qobject_cast<QFormLayout*>(layout());
    const bool open = advanced_->isChecked();
    ExperimentConfig otherShare = read;
    otherShare.share = !read.share;
    const StrategyTraits* mode = strategy();
    const bool shareToggles = mode && mode->takes(StrategySetting::Share);
    for (const Field& f : experimentFields()) {
        QWidget* editor = editors_.value(QLatin1String(f.key));
        if (!editor)
            continue;
        const bool applies = (!f.setting && !f.needs) || fieldApplies(f, read);
        editor->setEnabled(applies);
        const bool greyed =
            editor == workers_ ||
            (shareToggles && f.key != std::string_view("share") && fieldApplies(f, otherShare));
        const bool shown = (applies || greyed) && (!f.advanced || open);
        if (!form)
            continue;
        if (editor == hostfile_)
            form->setRowVisible(hostfileRow_, shown);
        else
            form->setRowVisible(editor, shown);
    }
}

} // namespace hwl::ui
