#include "experimentform.h"

#include "datasetfields.h"
#include "formstyle.h"
#include "modelfields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QVBoxLayout>

#include <exception>
#include <limits>
#include <optional>

namespace hwl::ui {

namespace {

std::optional<double> parseNumber(const QLineEdit* edit) {
    bool ok = false;
    const double value = edit->text().trimmed().toDouble(&ok);
    return ok ? std::optional<double>(value) : std::nullopt;
}

std::optional<std::uint64_t> parseSeed(const QLineEdit* edit) {
    bool ok = false;
    const qulonglong value = edit->text().trimmed().toULongLong(&ok, 10);
    return ok ? std::optional<std::uint64_t>(value) : std::nullopt;
}

QFormLayout* makeForm(QGroupBox* box) {
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    return form;
}

QLineEdit* makeNumberEdit(const char* name, const QString& tip) {
    auto* edit = new QLineEdit;
    edit->setObjectName(QString::fromLatin1(name));
    edit->setToolTip(tip);
    return edit;
}

void addItem(QComboBox* combo, const QString& text, int data, const QString& tip) {
    combo->addItem(text, data);
    combo->setItemData(combo->count() - 1, tip, Qt::ToolTipRole);
}

/// The fields the form shows, in display order (JSON names).
const char* const kFormFields[] = {"model",    "dataset",      "test-fraction", "mode",
                                   "workers",  "start-method", "share",         "on-worker-failure",
                                   "split",    "shuffle",      "batch",         "lr",
                                   "momentum", "weight-decay", "epochs",        "seed"};

} // namespace

ExperimentForm::ExperimentForm(QWidget* parent) : QWidget(parent) {
    fashionMnist_ = hwl::fashionMnistAvailable();
    setStyleSheet(QString::fromLatin1(kFormStyleSheet));
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    content_ = new QWidget;
    outer->addWidget(content_);
    auto* column = new QVBoxLayout(content_);
    column->setContentsMargins(0, 0, 0, 0);

    model_ = new ModelFields;
    dataset_ = new DatasetFields(fashionMnist_);
    column->addWidget(model_);
    column->addWidget(dataset_);
    buildParallelism(column);
    buildOptimiser(column);
    column->addStretch(1);

    errorLabels_.insert("model", model_->errorLabel());
    errorLabels_.insert("dataset", dataset_->errorLabel());
    errorLabels_.insert("test-fraction", dataset_->testFractionErrorLabel());

    connect(model_, &ModelFields::edited, this, &ExperimentForm::onEdited);
    connect(dataset_, &DatasetFields::edited, this, &ExperimentForm::onEdited);
    setConfig(hwl::ExperimentConfig::defaults());
}

ExperimentForm::~ExperimentForm() = default;

QString ExperimentForm::gpuModeToolTip() {
    return tr("not built: this build has no CUDA backend");
}

void ExperimentForm::buildParallelism(QVBoxLayout* column) {
    auto* box = new QGroupBox(tr("Parallelism"));
    QFormLayout* form = makeForm(box);
    auto addError = [&](const char* field) {
        QLabel* label = makeNoteLabel("error");
        label->setObjectName(QString::fromLatin1(field) + QStringLiteral("Error"));
        errorLabels_.insert(QString::fromLatin1(field), label);
        form->addRow(label);
    };

    mode_ = new QComboBox;
    mode_->setObjectName("mode");
    addItem(mode_, tr("serial"), int(Mode::Serial), tr("One worker, plain SGD: the reference"));
    addItem(mode_, tr("threads (Hogwild)"), int(Mode::Threads),
            tr("N threads update one shared copy of the parameters without locks"));
    addItem(mode_, tr("threads (locked)"), int(Mode::ThreadsLocked),
            tr("N threads, one mutex around each update: the baseline Hogwild beats"));
    addItem(mode_, tr("processes (Hogwild)"), int(Mode::Processes),
            tr("N processes update one copy in shared memory without locks"));
    for (const QString& gpu : {tr("data-parallel (GPU, NCCL)"), tr("GPU Hogwild (CUDA blocks)")}) {
        addItem(mode_, gpu, -1, gpuModeToolTip());
        if (auto* model = qobject_cast<QStandardItemModel*>(mode_->model())) {
            QStandardItem* item = model->item(mode_->count() - 1);
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
        }
    }
    form->addRow(tr("Mode"), mode_);
    addError("mode");

    workers_ = makeCountSpin("workers", 1, limits::kMaxWorkers, tr("Parallel workers"));
    form->addRow(tr("Workers"), workers_);
    workersWarning_ = makeNoteLabel("warning");
    workersWarning_->setObjectName("workersWarning");
    form->addRow(workersWarning_);
    addError("workers");

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
    setBaseToolTip(startMethod_, tr("How worker processes start (processes mode only)"));
    form->addRow(tr("Start method"), startMethod_);
    startNote_ = makeNoteLabel("warning");
    startNote_->setObjectName("startMethodNote");
    form->addRow(startNote_);
    addError("start-method");

    share_ = new QCheckBox(tr("Share parameters"));
    share_->setObjectName("share");
    setBaseToolTip(share_, tr("Processes mode: workers update one copy in shared memory. "
                              "Unchecked: each trains a private copy (the \"forgot to share\" "
                              "pitfall)"));
    form->addRow(QString(), share_);
    shareWarning_ = makeNoteLabel("warning");
    shareWarning_->setObjectName("shareWarning");
    form->addRow(shareWarning_);
    addError("share");

    failure_ = new QComboBox;
    failure_->setObjectName("onWorkerFailure");
    addItem(failure_, tr("stop"), int(FailurePolicy::Stop),
            tr("Stop the other workers and fail the run"));
    addItem(failure_, tr("continue"), int(FailurePolicy::Continue),
            tr("Let the other workers finish (the dead worker's shard is skipped)"));
    setBaseToolTip(failure_, tr("What happens when a worker process dies (processes mode)"));
    form->addRow(tr("Worker dies"), failure_);
    addError("on-worker-failure");

    split_ = new QComboBox;
    split_->setObjectName("split");
    addItem(split_, tr("shard"), int(DataSplit::Shard),
            tr("Each sample once per epoch, spread over the workers"));
    addItem(split_, tr("replicate"), int(DataSplit::Replicate),
            tr("Every worker walks the whole dataset each epoch (the blog's recipe: N workers do "
               "N times the work)"));
    form->addRow(tr("Data split"), split_);
    addError("split");

    shuffle_ = new QCheckBox(tr("Shuffle every epoch"));
    shuffle_->setObjectName("shuffle");
    shuffle_->setToolTip(tr("Unchecked: visit samples in file order"));
    form->addRow(QString(), shuffle_);
    addError("shuffle");
    column->addWidget(box);

    connect(mode_, &QComboBox::currentIndexChanged, this, &ExperimentForm::onModeChanged);
    connect(workers_, &QSpinBox::valueChanged, this, &ExperimentForm::onEdited);
    for (QComboBox* combo : {startMethod_, failure_, split_})
        connect(combo, &QComboBox::currentIndexChanged, this, &ExperimentForm::onEdited);
    for (QCheckBox* check : {share_, shuffle_})
        connect(check, &QCheckBox::toggled, this, &ExperimentForm::onEdited);
}

void ExperimentForm::buildOptimiser(QVBoxLayout* column) {
    auto* box = new QGroupBox(tr("Optimiser (SGD)"));
    QFormLayout* form = makeForm(box);
    auto add = [&](const QString& label, QWidget* editor, const char* field) {
        form->addRow(label, editor);
        QLabel* error = makeNoteLabel("error");
        error->setObjectName(QString::fromLatin1(field) + QStringLiteral("Error"));
        errorLabels_.insert(QString::fromLatin1(field), error);
        form->addRow(error);
    };
    batch_ = makeCountSpin("batch", 1, limits::kMaxBatch, tr("Samples per step"));
    lr_ = makeNumberEdit("lr", tr("Learning rate, in (0, 100], e.g. 0.01 or 1e-3"));
    momentum_ =
        makeNumberEdit("momentum", tr("SGD momentum in [0, 1); each worker keeps its own buffer"));
    weightDecay_ = makeNumberEdit("weightDecay", tr("L2 penalty added to the gradient, in [0, 1]"));
    epochs_ = makeCountSpin("epochs", 1, limits::kMaxEpochs, tr("Passes over the training data"));
    seed_ = new QLineEdit;
    seed_->setObjectName("seed");
    seed_->setToolTip(tr("Seeds the data, the initialisation and the sample order"));
    add(tr("Batch"), batch_, "batch");
    add(tr("Learning rate"), lr_, "lr");
    add(tr("Momentum"), momentum_, "momentum");
    add(tr("Weight decay"), weightDecay_, "weight-decay");
    add(tr("Epochs"), epochs_, "epochs");
    add(tr("Seed"), seed_, "seed");
    column->addWidget(box);

    for (QSpinBox* spin : {batch_, epochs_})
        connect(spin, &QSpinBox::valueChanged, this, &ExperimentForm::onEdited);
    for (QLineEdit* edit : {lr_, momentum_, weightDecay_, seed_})
        connect(edit, &QLineEdit::textChanged, this, &ExperimentForm::onEdited);
}

Mode ExperimentForm::mode() const {
    const int data = mode_->currentData().toInt();
    return data < 0 ? Mode::Threads : Mode(data);
}

hwl::ExperimentConfig ExperimentForm::config() const {
    hwl::ExperimentConfig c;
    c.model = model_->specText().toStdString();
    c.dataset = dataset_->specText().toStdString();
    c.testFraction = dataset_->testFraction();
    c.mode = mode();
    c.workers = c.mode == Mode::Serial ? 1 : workers_->value();
    c.startMethod = StartMethod(startMethod_->currentData().toInt());
    // Threads always share; the checkbox only means something for processes.
    c.share = c.mode != Mode::Processes || share_->isChecked();
    c.onWorkerFailure = FailurePolicy(failure_->currentData().toInt());
    c.split = DataSplit(split_->currentData().toInt());
    c.shuffle = shuffle_->isChecked();
    c.batch = batch_->value();
    c.epochs = epochs_->value();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    c.lr = parseNumber(lr_).value_or(nan);
    c.momentum = parseNumber(momentum_).value_or(nan);
    c.weightDecay = parseNumber(weightDecay_).value_or(nan);
    c.seed = parseSeed(seed_).value_or(lastSeed_);
    c.init = init_;
    c.out = out_;
    return c;
}

void ExperimentForm::setConfig(const hwl::ExperimentConfig& c) {
    filling_ = true;
    model_->setSpecText(QString::fromStdString(c.model));
    dataset_->setSpecText(QString::fromStdString(c.dataset));
    dataset_->setTestFraction(c.testFraction);
    mode_->setCurrentIndex(mode_->findData(int(c.mode)));
    workers_->setValue(c.workers);
    shownMode_ = c.mode;
    workersBeforeSerial_ = 0;
    startMethod_->setCurrentIndex(startMethod_->findData(int(c.startMethod)));
    share_->setChecked(c.share);
    failure_->setCurrentIndex(failure_->findData(int(c.onWorkerFailure)));
    split_->setCurrentIndex(split_->findData(int(c.split)));
    shuffle_->setChecked(c.shuffle);
    batch_->setValue(c.batch);
    epochs_->setValue(c.epochs);
    lr_->setText(shortestNumber(c.lr));
    momentum_->setText(shortestNumber(c.momentum));
    weightDecay_->setText(shortestNumber(c.weightDecay));
    seed_->setText(QString::number(qulonglong(c.seed)));
    lastSeed_ = c.seed;
    init_ = c.init;
    out_ = c.out;
    filling_ = false;
    updateEnablement();
    revalidate();
    emit changed();
}

QWidget* ExperimentForm::fieldWidget(const QString& field) const {
    if (field == QLatin1String("model"))
        return model_->mainEditor();
    if (field == QLatin1String("dataset"))
        return dataset_->mainEditor();
    if (field == QLatin1String("test-fraction"))
        return dataset_->testFractionSpin();
    const struct {
        const char* name;
        QWidget* widget;
    } fields[] = {{"mode", mode_},
                  {"workers", workers_},
                  {"start-method", startMethod_},
                  {"share", share_},
                  {"on-worker-failure", failure_},
                  {"split", split_},
                  {"shuffle", shuffle_},
                  {"batch", batch_},
                  {"lr", lr_},
                  {"momentum", momentum_},
                  {"weight-decay", weightDecay_},
                  {"epochs", epochs_},
                  {"seed", seed_}};
    for (const auto& f : fields)
        if (field == QLatin1String(f.name))
            return f.widget;
    return nullptr;
}

QLabel* ExperimentForm::errorLabel(const QString& field) const {
    return errorLabels_.value(field, nullptr);
}

void ExperimentForm::setRunning(bool running) {
    running_ = running;
    content_->setEnabled(!running);
}

void ExperimentForm::onModeChanged() {
    if (filling_)
        return;
    const Mode m = mode();
    if (m == Mode::Serial && shownMode_ != Mode::Serial) {
        workersBeforeSerial_ = workers_->value();
    } else if (m != Mode::Serial && shownMode_ == Mode::Serial) {
        const QSignalBlocker block(workers_);
        workers_->setValue(workersBeforeSerial_ > 1 ? workersBeforeSerial_ : 2);
    }
    shownMode_ = m;
    onEdited();
}

void ExperimentForm::onEdited() {
    if (filling_)
        return;
    if (const auto seed = parseSeed(seed_))
        lastSeed_ = *seed;
    updateEnablement();
    revalidate();
    emit changed();
}

void ExperimentForm::updateEnablement() {
    const Mode m = mode();
    const bool serial = m == Mode::Serial, processes = m == Mode::Processes;
    if (serial && workers_->value() != 1) {
        const QSignalBlocker block(workers_);
        workers_->setValue(1);
    }
    workers_->setEnabled(!serial);
    setBaseToolTip(workers_, serial ? tr("Serial mode runs exactly one worker; choose another "
                                         "mode for more")
                                    : tr("Parallel workers, 1..%1").arg(limits::kMaxWorkers));
    startMethod_->setEnabled(processes);
    share_->setEnabled(processes);
    failure_->setEnabled(processes);

    const int cores = QThread::idealThreadCount();
    const int workers = serial ? 1 : workers_->value();
    setNote(workersWarning_, workers > cores ? tr("%1 workers on %2 cores: they will time-share "
                                                  "the CPUs")
                                                   .arg(workers)
                                                   .arg(cores)
                                             : QString());
    setNote(shareWarning_,
            processes && !share_->isChecked()
                ? tr("Not shared: each worker trains a private copy; the test accuracy (measured "
                     "on the parent's copy) will not move and the exported model is the initial "
                     "one.")
                : QString());
    const bool fork =
        processes && StartMethod(startMethod_->currentData().toInt()) == StartMethod::Fork;
    setNote(startNote_, fork ? tr("fork() from this multi-threaded GUI process: each child gets "
                                  "only the forking thread; forkserver avoids that.")
                             : QString());
}

void ExperimentForm::revalidate() {
    const hwl::ExperimentConfig c = config();
    QMap<QString, QString> found;
    auto add = [&found](const QString& field, const QString& message) {
        QString& text = found[field];
        text = text.isEmpty() ? message : text + QLatin1Char('\n') + message;
    };

    // Number texts that do not parse: say so instead of validate()'s "got nan".
    const struct {
        const char* field;
        const QLineEdit* edit;
        const char* example;
    } numbers[] = {
        {"lr", lr_, "0.01"}, {"momentum", momentum_, "0.9"}, {"weight-decay", weightDecay_, "0"}};
    for (const auto& n : numbers)
        if (!parseNumber(n.edit))
            add(n.field, tr("\"%1\" is not a number; e.g. %2")
                             .arg(n.edit->text(), QLatin1String(n.example)));
    if (!parseSeed(seed_))
        add("seed", tr("\"%1\" is not a whole number in 0..%2")
                        .arg(seed_->text())
                        .arg(std::numeric_limits<qulonglong>::max()));

    for (const auto& issue : c.validate()) {
        const QString field = QString::fromStdString(issue.field);
        if (found.contains(field) &&
            (field == "lr" || field == "momentum" || field == "weight-decay"))
            continue;
        QString message = QString::fromStdString(issue.message);
        // The label sits under the field: no need to repeat its name.
        if (message.startsWith(field + QStringLiteral(": ")))
            message.remove(0, field.size() + 2);
        // The form's widgets already show the accepted model forms.
        const int forms = message.indexOf(QLatin1String(" Accepted forms:"));
        if (field == QLatin1String("model") && forms > 0)
            message.truncate(forms);
        add(field, message);
    }

    std::optional<DatasetSpec> data;
    std::optional<ModelSpec> model;
    try {
        data = c.datasetSpec();
    } catch (const std::exception&) {
    }
    try {
        model = c.modelSpec();
    } catch (const std::exception&) {
    }
    using DK = DatasetSpec::Kind;
    if (data) {
        const QString path = QString::fromStdString(data->path.string());
        const QFileInfo info(path);
        if (data->kind == DK::Csv || data->kind == DK::Libsvm) {
            if (!info.exists())
                add("dataset", tr("file not found: %1").arg(path));
            else if (!info.isFile())
                add("dataset", tr("not a file: %1").arg(path));
        } else if (data->kind == DK::Idx) {
            if (!info.exists())
                add("dataset", tr("folder not found: %1").arg(path));
            else if (!info.isDir())
                add("dataset",
                    tr("not a folder: %1 (choose the folder holding the IDX files)").arg(path));
        } else if (data->kind == DK::FashionMnist && !fashionMnist_) {
            add("dataset", tr("Fashion-MNIST is not installed (apt-get install "
                              "dataset-fashion-mnist): choose another source"));
        }
    }
    if (data && model) {
        // The shape is known before loading for synthetic data and Fashion-MNIST.
        const bool synthetic = DatasetFields::isSyntheticKind(data->kind);
        const bool known = synthetic || data->kind == DK::FashionMnist;
        const bool sparse = data->kind == DK::SparseBow || data->kind == DK::Libsvm;
        const qint64 dim = data->kind == DK::FashionMnist ? 784 : data->dim;
        const qint64 classes = data->kind == DK::FashionMnist ? 10 : data->classes;
        if (model->kind == ModelSpec::Kind::Mlp && known) {
            const QString what =
                data->kind == DK::SparseBow ? tr("tokens in its vocabulary") : tr("features");
            if (model->layers.front() != dim)
                add("model", tr("the input width is %1 but the dataset has %2 %3: make the first "
                                "width %2")
                                 .arg(model->layers.front())
                                 .arg(dim)
                                 .arg(what));
            if (model->layers.back() < classes)
                add("model", tr("the output width is %1 but the dataset has %2 classes: make the "
                                "last width at least %2")
                                 .arg(model->layers.back())
                                 .arg(classes));
        } else if (model->kind == ModelSpec::Kind::EmbeddingBag) {
            if (!sparse)
                add("model", tr("an embedding bag needs a sparse dataset: choose the source "
                                "sparse-bow or a LIBSVM file, or use an MLP"));
            else if (data->kind == DK::SparseBow) {
                if (model->vocab < dim)
                    add("model", tr("V is %1 but the dataset's vocabulary has %2 tokens: make V "
                                    "at least %2")
                                     .arg(model->vocab)
                                     .arg(dim));
                if (model->classes < classes)
                    add("model", tr("C is %1 but the dataset has %2 classes: make C at least %2")
                                     .arg(model->classes)
                                     .arg(classes));
            }
        }
    }

    // Show every problem at its field; clear the others.
    for (const char* name : kFormFields) {
        const QString field = QString::fromLatin1(name);
        const QString message = found.value(field);
        if (QLabel* label = errorLabels_.value(field, nullptr))
            setNote(label, message);
        if (field == QLatin1String("model")) {
            const QList<QWidget*> marked = model_->editors();
            for (QWidget* w : {static_cast<QWidget*>(model_->widthsEdit()),
                               static_cast<QWidget*>(model_->vocabSpin()),
                               static_cast<QWidget*>(model_->dimSpin()),
                               static_cast<QWidget*>(model_->classesSpin())})
                markEditor(w, marked.contains(w) ? message : QString());
        } else if (field == QLatin1String("dataset")) {
            QWidget* main = dataset_->mainEditor();
            for (QWidget* w : {static_cast<QWidget*>(dataset_->kindCombo()),
                               static_cast<QWidget*>(dataset_->pathEdit())})
                markEditor(w, w == main ? message : QString());
        } else {
            markEditor(fieldWidget(field), message);
        }
    }
    // Problems with fields the form has no editor for (none today) still count.
    const bool wasValid = problems_.isEmpty();
    problems_ = found;
    if (wasValid != problems_.isEmpty())
        emit validityChanged(problems_.isEmpty());
}

} // namespace hwl::ui
