#include "form/experimentform.h"
#include "form/formwords.h"

#include "form/datasetfields.h"
#include "form/formeditors.h"
#include "form/modelfields.h"
#include "form/optimizerfields.h"
#include "form/parallelismfields.h"
#include "form/targetfields.h"
#include "widgets/fieldnote.h"
#include "widgets/formstyle.h"

#include "config/fields.h"
#include "config/preflight.h"
#include "launch/devices.h"
#include "strategy/catalog.h"
#include "strategy/validation.h"
#include "util/errors.h"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMap>
#include <QScrollArea>
#include <QSpinBox>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include <limits>
#include <memory>
#include <optional>

namespace hwl::ui {

namespace {

/// An integer field's editor, its range from the engine's field table, and
/// one below it: a 0 typed into Epochs is shown and refused at the field
/// (the validator's message), not silently turned back into the old value.
QSpinBox* makeFieldSpin(const char* key, const QString& tip) {
    const Field* f = findField(key);
    return makeCountSpin(key, int(f->min) - 1, int(f->max), tip);
}

/// The fields the form shows, in display order (JSON names): the order in
/// which the problem summary looks for the first problem.
// clang-format off
const char* const kFormFields[] = {
    "model", "dropout", "dataset", "test-fraction", "normalize", "mode", "workers", "lost-updates",
    "start-method", "share", "on-worker-failure", "transport", "sync-every", "hostfile",
    "mpirun-args", "reduce", "device", "replicas-per-gpu", "blocks", "update", "split", "shuffle",
    "bucket-mb", "drop-last", "spawn-before-share", "loader-workers", "cuda-before-fork",
    "force-unsafe-fork", "batch", "lr", "optimizer", "momentum", "nesterov", "weight-decay",
    "beta1", "beta2", "eps", "alpha", "lr-decay", "initial-accumulator", "optimizer-state",
    "lr-schedule", "warmup-steps", "accumulate", "epochs", "target-accuracy", "target-loss",
    "train-past-target", "eval-every", "seed"};
// clang-format on

/// The label of the form-layout row that holds `field` (as its field, or
/// inside the layout that is its field), or empty.
QString rowLabel(QWidget* field) {
    const QWidget* box = field->parentWidget();
    auto* form = box ? qobject_cast<QFormLayout*>(box->layout()) : nullptr;
    if (!form)
        return {};
    for (int row = 0; row < form->rowCount(); ++row) {
        QLayoutItem* item = form->itemAt(row, QFormLayout::FieldRole);
        if (!item ||
            (item->widget() != field && !(item->layout() && item->layout()->indexOf(field) >= 0)))
            continue;
        QLayoutItem* label = form->itemAt(row, QFormLayout::LabelRole);
        const auto* text = label ? qobject_cast<QLabel*>(label->widget()) : nullptr;
        return text ? text->text().remove(QLatin1Char('&')) : QString();
    }
    return {};
}

} // namespace

void ExperimentForm::setDarkStyle(bool dark) {
    setStyleSheet(formStyleSheet(dark));
}

ExperimentForm::ExperimentForm(QWidget* parent) : QWidget(parent) {
    setStyleSheet(formStyleSheet(false));
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    outer->setSpacing(0); // the summary's line is room enough (the form fits 1400x900)
    // The first problem, where the eye starts: the field may be scrolled
    // away. One line whose room is always kept (empty while the form is
    // valid), the text cut to fit with the whole in its tooltip: a problem
    // that appears never pushes the fields down under the pointer.
    summary_ = makeNoteLabel("error");
    summary_->setObjectName("problemSummary");
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(false);
    summary_->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    summary_->setFixedHeight(summary_->fontMetrics().height());
    summary_->show();
    connect(summary_, &QLabel::linkActivated, this, &ExperimentForm::showField);
    outer->addWidget(summary_);
    content_ = new QWidget;
    outer->addWidget(content_);
    auto* column = new QVBoxLayout(content_);
    column->setContentsMargins(0, 0, 0, 0);

    model_ = new ModelFields;
    dataset_ = new DatasetFields(hwl::fashionMnistAvailable());
    parallelism_ = new ParallelismFields;
    optimizer_ = new OptimizerFields(this);
    target_ = new TargetFields(this);
    column->addWidget(model_);
    column->addWidget(dataset_);
    column->addWidget(parallelism_);
    buildOptimizer(column);
    buildOutRow(column);
    column->addStretch(1);

    errorLabels_.insert("model", model_->errorLabel());
    errorLabels_.insert("dataset", dataset_->errorLabel());
    errorLabels_.insert("test-fraction", dataset_->testFractionErrorLabel());
    errorLabels_.insert("normalize", dataset_->normalizeErrorLabel());
    for (auto it = parallelism_->errorLabels().begin(); it != parallelism_->errorLabels().end();
         ++it)
        errorLabels_.insert(it.key(), it.value());
    // The notes the parts hang under their typed fields lie over the form.
    for (QLabel* label : errorLabels_)
        if (auto* note = qobject_cast<FieldNote*>(label); note && note->parentWidget() != this)
            note->setParent(this); // hidden until its field is in use

    connect(model_, &ModelFields::edited, this, &ExperimentForm::onEdited);
    connect(dataset_, &DatasetFields::edited, this, &ExperimentForm::onEdited);
    connect(parallelism_, &ParallelismFields::edited, this, &ExperimentForm::onEdited);

    auto* guard = new WheelGuard(this);
    const QList<QWidget*> wheeled = [this] {
        QList<QWidget*> all;
        for (QAbstractSpinBox* w : findChildren<QAbstractSpinBox*>())
            all << w;
        for (QComboBox* w : findChildren<QComboBox*>())
            all << w;
        return all;
    }();
    for (QWidget* w : wheeled) {
        w->setFocusPolicy(Qt::StrongFocus); // not Qt::WheelFocus: a wheel does not focus it
        w->installEventFilter(guard);
    }
    setConfig(hwl::ExperimentConfig::defaults());
}

ExperimentForm::~ExperimentForm() = default;

QLabel* ExperimentForm::workersWarning() const {
    return parallelism_->workersWarning();
}
QLabel* ExperimentForm::shareWarning() const {
    return parallelism_->shareWarning();
}
QLabel* ExperimentForm::startMethodNote() const {
    return parallelism_->startMethodNote();
}

void ExperimentForm::buildOutRow(QVBoxLayout* column) {
    // An experiment file's `out`: where the run writes its files, in view
    // while it is set (issue 49: it was invisible and outlived every edit).
    outRow_ = new QWidget;
    auto* row = new QHBoxLayout(outRow_);
    row->setContentsMargins(4, 2, 4, 2);
    outLabel_ = new QLabel;
    outLabel_->setObjectName("outFolder");
    outLabel_->setWordWrap(true);
    outLabel_->setTextFormat(Qt::PlainText);
    outLabel_->setToolTip(tr("The experiment's out: when the run ends its weights, metrics and "
                             "summary are written into this folder (Start asks before replacing "
                             "a run there). Forget to write nothing"));
    auto* forget = new QToolButton;
    forget->setObjectName("forgetOut");
    forget->setText(tr("Forget"));
    forget->setToolTip(tr("Write no files for this experiment"));
    connect(forget, &QToolButton::clicked, this, [this] {
        out_.clear();
        showOut();
        emit changed();
    });
    row->addWidget(outLabel_, 1);
    row->addWidget(forget);
    column->addWidget(outRow_);
    outRow_->hide();
}

void ExperimentForm::showOut() {
    outLabel_->setText(
        tr("Writes to %1").arg(QDir::toNativeSeparators(QString::fromStdString(out_))));
    outRow_->setVisible(!out_.empty());
}

void ExperimentForm::buildOptimizer(QVBoxLayout* column) {
    auto* box = new QGroupBox(tr("Optimizer"));
    QFormLayout* form = makeForm(box);
    optimiserForm_ = form;
    auto addError = [&](const char* field, bool typed) {
        // A typed field's message hangs under it over the rows below, so
        // that no field moves while the user types; a choice's is a row.
        QLabel* error = nullptr;
        if (typed) {
            auto* note = new FieldNote(this);
            note->setAnchor(fieldWidget(QString::fromLatin1(field)));
            error = note;
        } else {
            error = makeNoteLabel("error");
            form->addRow(error);
        }
        error->setObjectName(QString::fromLatin1(field) + QStringLiteral("Error"));
        errorLabels_.insert(QString::fromLatin1(field), error);
    };
    auto add = [&](const QString& label, auto* editor, const char* field, bool typed) {
        form->addRow(label, editor);
        addError(field, typed);
    };
    batch_ = makeFieldSpin("batch", tr("Samples per step"));
    lr_ = makeNumberEdit("lr", numberTip("lr", tr("Learning rate")) + tr(", e.g. 0.01 or 1e-3"));
    weightDecay_ = makeNumberEdit(
        "weightDecay", numberTip("weight-decay", tr("L2 penalty added to the gradient")));
    lrSchedule_ = new QLineEdit;
    lrSchedule_->setObjectName("lrSchedule");
    lrSchedule_->setToolTip(tr("constant, step:EPOCHS:GAMMA (the rate times GAMMA every EPOCHS "
                               "epochs, PyTorch's StepLR) or cosine (CosineAnnealingLR over the "
                               "run's epochs); each worker follows it"));
    warmupSteps_ = makeFieldSpin("warmup-steps", tr("A linear warm-up of the rate over each "
                                                    "worker's first N steps (0: none)"));
    accumulate_ = makeFieldSpin("accumulate", tr("Batches whose mean gradient makes one update "
                                                 "(gradient accumulation; data-parallel: one "
                                                 "allreduce per that many batches)"));
    epochs_ = makeFieldSpin("epochs", tr("Passes over the training data"));
    seed_ = new QLineEdit;
    seed_->setObjectName("seed");
    seed_->setToolTip(tr("Seeds the data, the initialisation and the sample order"));
    add(tr("Batch"), batch_, "batch", true);
    // The rate and the rule on one row (the rule's name in the combo, its
    // accessible name "Optimizer"), so that the thread Hogwild form still
    // fits a 1400x900 window.
    auto* rate = new QHBoxLayout;
    rate->setContentsMargins(0, 0, 0, 0);
    rate->addWidget(lr_, 1);
    rate->addWidget(optimizer_->fieldWidget(QStringLiteral("optimizer")));
    rate->addWidget(optimizer_->fieldWidget(QStringLiteral("optimizer-state")));
    form->addRow(tr("Learning rate"), rate);
    addError("lr", true);
    form->addRow(optimizer_->rateHint()); // a rate far above the rule's usual one
    connect(lr_, &QLineEdit::editingFinished, this,
            [this] { optimizer_->updateRateHint(config()); });
    addError("optimizer", false); // a choice: its message a row of its own
    addError("optimizer-state", false);
    optimizer_->addRows(form, addError);
    add(tr("Weight decay"), weightDecay_, "weight-decay", true);
    add(tr("LR schedule"), lrSchedule_, "lr-schedule", true);
    add(tr("Warm-up steps"), warmupSteps_, "warmup-steps", true);
    // A short label (the rate's row keeps its width), the cadence beside it.
    add(tr("Accumulate"), target_->besideEvalEvery(accumulate_), "accumulate", true);
    addError("eval-every", true);
    // The epochs and the target to stop at on one row (the form fits 1400x900).
    target_->row()->insertWidget(0, epochs_);
    form->addRow(tr("Epochs"), target_->row());
    addError("epochs", true);
    addError("target-accuracy", true);
    addError("target-loss", true);
    add(tr("Seed"), seed_, "seed", true);
    column->addWidget(box);

    for (QSpinBox* spin : {batch_, warmupSteps_, accumulate_, epochs_})
        connect(spin, &QSpinBox::valueChanged, this, &ExperimentForm::onEdited);
    for (QLineEdit* edit : {lr_, weightDecay_, lrSchedule_, seed_})
        connect(edit, &QLineEdit::textChanged, this, &ExperimentForm::onEdited);
    connect(optimizer_, &OptimizerFields::edited, this, &ExperimentForm::onEdited);
    connect(target_, &TargetFields::edited, this, &ExperimentForm::onEdited);
}

hwl::ExperimentConfig ExperimentForm::config() const {
    hwl::ExperimentConfig c;
    c.model = model_->specText().toStdString();
    c.dropout = model_->dropout();
    c.dataset = dataset_->specText().toStdString();
    c.testFraction = dataset_->testFraction();
    c.normalize = dataset_->normalizeText().toStdString();
    parallelism_->apply(c);
    c.batch = batch_->value();
    c.epochs = epochs_->value();
    target_->apply(c);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    c.lr = judged<double>("lr", lr_).value_or(nan);
    c.weightDecay = judged<double>("weight-decay", weightDecay_).value_or(nan);
    optimizer_->apply(c);
    c.lrSchedule = lrSchedule_->text().trimmed().toStdString();
    c.warmupSteps = warmupSteps_->value();
    c.accumulate = accumulate_->value();
    c.seed = judged<std::uint64_t>("seed", seed_).value_or(lastSeed_);
    c.init = init_;
    c.resume = resume_;
    c.out = out_;
    c.tensorboard = tensorboard_;
    return c;
}

void ExperimentForm::setConfig(const hwl::ExperimentConfig& c) {
    filling_ = true;
    model_->setSpecText(QString::fromStdString(c.model));
    model_->setDropout(c.dropout);
    dataset_->setSpecText(QString::fromStdString(c.dataset));
    dataset_->setTestFraction(c.testFraction);
    dataset_->setNormalizeText(QString::fromStdString(c.normalize));
    parallelism_->setConfig(c);
    batch_->setValue(c.batch);
    epochs_->setValue(c.epochs);
    target_->setConfig(c);
    lr_->setText(shortestNumber(c.lr));
    optimizer_->setConfig(c);
    weightDecay_->setText(shortestNumber(c.weightDecay));
    lrSchedule_->setText(QString::fromStdString(c.lrSchedule));
    warmupSteps_->setValue(c.warmupSteps);
    accumulate_->setValue(c.accumulate);
    seed_->setText(QString::number(qulonglong(c.seed)));
    lastSeed_ = c.seed;
    init_ = c.init;
    resume_ = c.resume;
    out_ = c.out;
    showOut();
    tensorboard_ = c.tensorboard;
    filling_ = false;
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
    if (field == QLatin1String("normalize"))
        return dataset_->normalizeCombo();
    if (field == QLatin1String("dropout"))
        return model_->dropoutSpin();
    if (QWidget* w = parallelism_->fieldWidget(field))
        return w;
    if (QWidget* w = optimizer_->fieldWidget(field))
        return w;
    if (QWidget* w = target_->fieldWidget(field))
        return w;
    const struct {
        const char* name;
        QWidget* widget;
    } fields[] = {{"batch", batch_},
                  {"lr", lr_},
                  {"weight-decay", weightDecay_},
                  {"lr-schedule", lrSchedule_},
                  {"warmup-steps", warmupSteps_},
                  {"accumulate", accumulate_},
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

void ExperimentForm::onEdited() {
    if (filling_)
        return;
    if (const auto seed = judged<std::uint64_t>("seed", seed_))
        lastSeed_ = *seed;
    target_->followMode(config());
    revalidate();
    emit changed();
}

QMap<QString, QString> ExperimentForm::findProblems() const {
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
    } numbers[] = {{"lr", lr_, "0.01"}, {"weight-decay", weightDecay_, "0"}};
    for (const auto& n : numbers)
        if (!judged<double>(n.field, n.edit))
            add(n.field, tr("\"%1\" is not a number; e.g. %2")
                             .arg(n.edit->text(), QLatin1String(n.example)));
    const QMap<QString, QString> unparsed = optimizer_->unparsedNumbers(c);
    for (auto it = unparsed.begin(); it != unparsed.end(); ++it)
        add(it.key(), it.value());
    if (!judged<std::uint64_t>("seed", seed_))
        add("seed", tr("\"%1\" is not a whole number in 0..%2")
                        .arg(seed_->text())
                        .arg(std::numeric_limits<qulonglong>::max()));

    // A GPU mode on a machine where the probe found no device: said before
    // Start, where the mode (or the cuda device) is chosen.
    if (!gpuMissing_.isEmpty())
        if (const StrategyTraits* s = findStrategy(c); s && s->cuda && s->unavailable.empty())
            add(s->takes(StrategySetting::Device) ? "device" : "mode", gpuMissing_);

    std::vector<ConfigIssue> issues = validateExperiment(c);
    const std::vector<ConfigIssue> before = checkBeforeLoading(c);
    issues.insert(issues.end(), before.begin(), before.end());
    for (const auto& issue : issues) {
        const QString field = QString::fromStdString(issue.field);
        if (found.contains(field) &&
            (field == "lr" || field == "weight-decay" || optimizer_->isNumber(field)))
            continue;
        QString message = QString::fromStdString(issue.message);
        // The form's widgets already show the accepted model forms.
        const int forms = message.indexOf(QLatin1String(" Accepted forms:"));
        if (field == QLatin1String("model") && forms > 0)
            message.truncate(forms);
        add(field, inFormWords(field, message));
    }
    return found;
}

QString ExperimentForm::fieldLabel(const QString& field) const {
    if (field == QLatin1String("model"))
        return model_->title();
    if (field == QLatin1String("dataset"))
        return dataset_->title();
    QWidget* w = fieldWidget(field);
    if (const auto* check = qobject_cast<QCheckBox*>(w))
        return QLatin1Char('"') + check->text().remove(QLatin1Char('&')) + QLatin1Char('"');
    if (w && !w->accessibleName().isEmpty()) // an editor beside another on its row
        return w->accessibleName();
    const QString label = w ? rowLabel(w) : QString();
    return label.isEmpty() ? field : label;
}

QString ExperimentForm::inFormWords(const QString& field, QString message) const {
    return FormWords([this](const QString& key) { return fieldLabel(key); })
        .say(field, std::move(message));
}

QStringList ExperimentForm::orderedProblemFields() const {
    QStringList fields;
    for (const char* name : kFormFields)
        if (problems_.contains(QString::fromLatin1(name)))
            fields << QString::fromLatin1(name);
    for (auto it = problems_.begin(); it != problems_.end(); ++it)
        if (!fields.contains(it.key()))
            fields << it.key();
    return fields;
}

QString ExperimentForm::problemSummary() const {
    const QStringList fields = orderedProblemFields();
    if (fields.isEmpty())
        return {};
    const QString& field = fields.first();
    const QString message = problems_.value(field).section(QLatin1Char('\n'), 0, 0);
    const QString label = fieldLabel(field);
    QString text = message.startsWith(label) ? message : label + QStringLiteral(": ") + message;
    if (fields.size() == 2)
        text += tr(" (and one more field marked in red)");
    else if (fields.size() > 2)
        text += tr(" (and %1 more fields marked in red)").arg(fields.size() - 1);
    return text;
}

void ExperimentForm::showField(const QString& field) {
    QWidget* w = fieldWidget(field);
    if (!w)
        return;
    for (QWidget* p = parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(p)) {
            area->ensureWidgetVisible(w);
            break;
        }
    w->setFocus(Qt::OtherFocusReason);
}

QString ExperimentForm::noGpuSentence(const QString& reported) {
    QString why = reported.trimmed();
    const QLatin1String prefix("no CUDA device: "); // the probe's own words, said once here
    if (why.startsWith(prefix))
        why = why.mid(prefix.size());
    return tr("No GPU found on this machine (CUDA reported: %1): GPU modes are unavailable")
        .arg(why);
}

void ExperimentForm::setGpuAvailability(bool available, const QString& detail) {
    gpuKnown_ = true;
    gpuMissing_ = available ? QString() : noGpuSentence(detail);
    const QString devices = detail.isEmpty() ? tr("CUDA devices found") : detail;
    parallelism_->setGpuState(gpuMissing_, available ? devices : QString());
    revalidate();
}

void ExperimentForm::startGpuProbe() {
    if (probing_ || gpuKnown_ || !cudaBuilt())
        return;
    probing_ = true;
    // The probe starts a child process and waits for it (up to 30 s when
    // the driver hangs): never on the GUI thread.
    auto found = std::make_shared<DeviceList>();
    QThread* thread = QThread::create([found] { *found = listDevices(); });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    connect(thread, &QThread::finished, this, [this, found] {
        probing_ = false;
        if (found->devices.empty())
            setGpuAvailability(false, QString::fromStdString(found->unavailable));
        else
            setGpuAvailability(
                true,
                tr("Devices: %1").arg(QString::fromStdString(describeDevices(*found)).trimmed()));
    });
    thread->start();
}

void ExperimentForm::showProblems(const QMap<QString, QString>& found) {
    for (const char* name : kFormFields) {
        const QString field = QString::fromLatin1(name);
        const QString message = found.value(field);
        if (QLabel* label = errorLabels_.value(field, nullptr))
            setNote(label, message);
        if (field == QLatin1String("model")) {
            const QList<QWidget*> marked = model_->editors();
            for (QWidget* w : model_->allEditors())
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
}

void ExperimentForm::showSummary() {
    const QStringList fields = orderedProblemFields();
    if (fields.isEmpty()) {
        summary_->clear();
        summary_->setToolTip({});
        return;
    }
    const QString link = QStringLiteral("<a href=\"%1\">%2</a>").arg(fields.first(), tr("Show"));
    const QFontMetrics metrics = summary_->fontMetrics();
    const int room = summary_->width() - metrics.horizontalAdvance(tr("Show")) -
                     metrics.horizontalAdvance(QLatin1Char(' ')) * 2;
    const QString text = metrics.elidedText(problemSummary(), Qt::ElideRight, std::max(room, 0));
    summary_->setText(text.toHtmlEscaped() + QLatin1Char(' ') + link);
    summary_->setToolTip(problemSummary());
}

void ExperimentForm::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    showSummary(); // cut again to the new width
}

void ExperimentForm::revalidate() {
    optimizer_->showRows(optimiserForm_, config());
    const QMap<QString, QString> found = findProblems();
    showProblems(found);
    // Problems with fields the form has no editor for still count.
    const bool wasValid = problems_.isEmpty();
    problems_ = found;
    showSummary();
    // A GPU mode chosen before anything is known: look now (in the background).
    if (!gpuKnown_)
        if (const StrategyTraits* s = findStrategy(config()); s && s->cuda)
            startGpuProbe();
    if (wasValid != problems_.isEmpty())
        emit validityChanged(problems_.isEmpty());
}

} // namespace hwl::ui
