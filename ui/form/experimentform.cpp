#include "form/experimentform.h"

#include "form/datasetfields.h"
#include "form/formstyle.h"
#include "form/modelfields.h"
#include "form/parallelismfields.h"

#include "config/fields.h"
#include "config/preflight.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QMap>
#include <QSpinBox>
#include <QVBoxLayout>

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

QLineEdit* makeNumberEdit(const char* name, const QString& tip) {
    auto* edit = new QLineEdit;
    edit->setObjectName(QString::fromLatin1(name));
    edit->setToolTip(tip);
    return edit;
}

/// An integer field's editor, its range from the engine's field table, and
/// one below it: a 0 typed into Epochs is shown and refused at the field
/// (the validator's message), not silently turned back into the old value.
QSpinBox* makeFieldSpin(const char* key, const QString& tip) {
    const Field* f = findField(key);
    return makeCountSpin(key, int(f->min) - 1, int(f->max), tip);
}

/// What the form calls a field, for messages that begin with its key.
QString windowName(const QString& key) {
    static const QMap<QString, QString> names{{"lr", QObject::tr("Learning rate")},
                                              {"momentum", QObject::tr("Momentum")},
                                              {"weight-decay", QObject::tr("Weight decay")},
                                              {"epochs", QObject::tr("Epochs")},
                                              {"batch", QObject::tr("Batch")},
                                              {"seed", QObject::tr("Seed")},
                                              {"workers", QObject::tr("Workers")},
                                              {"test-fraction", QObject::tr("Test fraction")},
                                              {"sync-every", QObject::tr("Sync every")},
                                              {"bucket-mb", QObject::tr("Bucket cap (MiB)")},
                                              {"blocks", QObject::tr("Blocks")},
                                              {"replicas-per-gpu", QObject::tr("Replicas per GPU")},
                                              {"lost-updates", QObject::tr("Count lost updates")},
                                              {"start-method", QObject::tr("Start method")},
                                              {"share", QObject::tr("Share parameters")}};
    return names.value(key, key);
}

/// A number field's tooltip: what it is and its interval from the field table.
QString numberTip(const char* key, const QString& what) {
    return QStringLiteral("%1, in %2")
        .arg(what, QString::fromStdString(findField(key)->rangeText()));
}

/// The fields the form shows, in display order (JSON names).
const char* const kFormFields[] = {
    "model",     "dataset",      "test-fraction", "mode",
    "workers",   "start-method", "share",         "on-worker-failure",
    "transport", "sync-every",   "bucket-mb",     "drop-last",
    "split",     "shuffle",      "batch",         "lr",
    "momentum",  "weight-decay", "epochs",        "seed"};

} // namespace

void ExperimentForm::setDarkStyle(bool dark) {
    setStyleSheet(formStyleSheet(dark));
}

ExperimentForm::ExperimentForm(QWidget* parent) : QWidget(parent) {
    setStyleSheet(formStyleSheet(false));
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    content_ = new QWidget;
    outer->addWidget(content_);
    auto* column = new QVBoxLayout(content_);
    column->setContentsMargins(0, 0, 0, 0);

    model_ = new ModelFields;
    dataset_ = new DatasetFields(hwl::fashionMnistAvailable());
    parallelism_ = new ParallelismFields;
    column->addWidget(model_);
    column->addWidget(dataset_);
    column->addWidget(parallelism_);
    buildOptimiser(column);
    column->addStretch(1);

    errorLabels_.insert("model", model_->errorLabel());
    errorLabels_.insert("dataset", dataset_->errorLabel());
    errorLabels_.insert("test-fraction", dataset_->testFractionErrorLabel());
    for (auto it = parallelism_->errorLabels().begin(); it != parallelism_->errorLabels().end();
         ++it)
        errorLabels_.insert(it.key(), it.value());

    connect(model_, &ModelFields::edited, this, &ExperimentForm::onEdited);
    connect(dataset_, &DatasetFields::edited, this, &ExperimentForm::onEdited);
    connect(parallelism_, &ParallelismFields::edited, this, &ExperimentForm::onEdited);
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

void ExperimentForm::buildOptimiser(QVBoxLayout* column) {
    auto* box = new QGroupBox(tr("Optimiser (SGD)"));
    QFormLayout* form = makeForm(box);
    auto add = [&](const QString& label, QWidget* editor, const char* field) {
        form->addRow(label, editor);
        QLabel* error = makeNoteLabel("error");
        // Typed fields keep their message's room, so that the fields below
        // do not jump while the user types.
        QSizePolicy keep = error->sizePolicy();
        keep.setRetainSizeWhenHidden(true);
        error->setSizePolicy(keep);
        error->setObjectName(QString::fromLatin1(field) + QStringLiteral("Error"));
        errorLabels_.insert(QString::fromLatin1(field), error);
        form->addRow(error);
    };
    batch_ = makeFieldSpin("batch", tr("Samples per step"));
    lr_ = makeNumberEdit("lr", numberTip("lr", tr("Learning rate")) + tr(", e.g. 0.01 or 1e-3"));
    momentum_ = makeNumberEdit("momentum", numberTip("momentum", tr("SGD momentum")) +
                                               tr("; each worker keeps its own buffer"));
    weightDecay_ = makeNumberEdit(
        "weightDecay", numberTip("weight-decay", tr("L2 penalty added to the gradient")));
    epochs_ = makeFieldSpin("epochs", tr("Passes over the training data"));
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

hwl::ExperimentConfig ExperimentForm::config() const {
    hwl::ExperimentConfig c;
    c.model = model_->specText().toStdString();
    c.dataset = dataset_->specText().toStdString();
    c.testFraction = dataset_->testFraction();
    parallelism_->apply(c);
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
    parallelism_->setConfig(c);
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
    if (QWidget* w = parallelism_->fieldWidget(field))
        return w;
    const struct {
        const char* name;
        QWidget* widget;
    } fields[] = {{"batch", batch_},       {"lr", lr_},
                  {"momentum", momentum_}, {"weight-decay", weightDecay_},
                  {"epochs", epochs_},     {"seed", seed_}};
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
    if (const auto seed = parseSeed(seed_))
        lastSeed_ = *seed;
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

    std::vector<ConfigIssue> issues = c.validate();
    const std::vector<ConfigIssue> before = checkBeforeLoading(c);
    issues.insert(issues.end(), before.begin(), before.end());
    for (const auto& issue : issues) {
        const QString field = QString::fromStdString(issue.field);
        if (found.contains(field) &&
            (field == "lr" || field == "momentum" || field == "weight-decay"))
            continue;
        QString message = QString::fromStdString(issue.message);
        // The form's widgets already show the accepted model forms.
        const int forms = message.indexOf(QLatin1String(" Accepted forms:"));
        if (field == QLatin1String("model") && forms > 0)
            message.truncate(forms);
        // "lr must be ..." in the window's words: "Learning rate must be ...".
        if (message.startsWith(field + ' '))
            message.replace(0, field.size(), windowName(field));
        add(field, message);
    }
    return found;
}

void ExperimentForm::showProblems(const QMap<QString, QString>& found) {
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
}

void ExperimentForm::revalidate() {
    const QMap<QString, QString> found = findProblems();
    showProblems(found);
    // Problems with fields the form has no editor for still count.
    const bool wasValid = problems_.isEmpty();
    problems_ = found;
    if (wasValid != problems_.isEmpty())
        emit validityChanged(problems_.isEmpty());
}

} // namespace hwl::ui
