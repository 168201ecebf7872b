#include "runs/sweepdialog.h"

#include "widgets/formstyle.h"

#include "config/fields.h"
#include "config/sweep.h"
#include "strategy/catalog.h"
#include "strategy/validation.h"
#include "util/errors.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStringList>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>

namespace hwl::ui {

namespace {

/// The first line of a field's help (its tooltip in the field list).
QString firstHelpLine(const Field& f) {
    const QString help = QString::fromUtf8(f.help);
    return help.section(QLatin1Char('\n'), 0, 0).trimmed();
}

/// "1, 2 ,4" as a flag takes it: "1,2,4" (spaces around a value dropped).
QString valueList(const QString& text) {
    QStringList values = text.split(QLatin1Char(','));
    for (QString& value : values)
        value = value.trimmed();
    return values.join(QLatin1Char(','));
}

/// The values of an axis as a row shows them: "1,2,4".
QString axisText(const SweepAxis& axis) {
    QStringList values;
    for (const FieldValue& value : axis.values)
        values << QString::fromStdString(sweepValueText(value));
    return values.join(QLatin1Char(','));
}

/// The engine's message about a sweep in the dialog's words: the rows, not
/// the --sweep flag and --help ("--sweep workers: expected an integer, got
/// \"two\" (see --help)" -> "workers: expected an integer, got \"two\"").
QString inDialogWords(QString message) {
    message.replace(QStringLiteral(" (see --help)"), QString());
    message.replace(QStringLiteral("in one --sweep"), QStringLiteral("in one row"));
    if (message.startsWith(QStringLiteral("--sweep: ")))
        message.remove(0, 9);
    else if (message.startsWith(QStringLiteral("--sweep ")))
        message.remove(0, 8);
    return message;
}

/// At most SweepDialog::kMaxProblemLines lines of `message`, then how many more.
QString shortened(const QString& message) {
    const QStringList lines = message.split(QLatin1Char('\n'));
    if (lines.size() <= SweepDialog::kMaxProblemLines)
        return message;
    return lines.mid(0, SweepDialog::kMaxProblemLines).join(QLatin1Char('\n')) +
           SweepDialog::tr("\n  … and %1 more lines")
               .arg(lines.size() - SweepDialog::kMaxProblemLines);
}

} // namespace

SweepDialog::SweepDialog(const ExperimentConfig& base, QWidget* parent)
    : QDialog(parent), base_(base) {
    setWindowTitle(tr("Sweep"));
    setObjectName(QStringLiteral("sweepDialog"));
    base_.sweep.clear();
    setStyleSheet(formStyleSheet(palette().color(QPalette::Window).lightness() < 128));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("A grid of runs, one after another: each row is a field and its "
                                "values separated by commas; the sweep runs every combination "
                                "(the first row varies slowest) from the experiment in the form."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    rowsLayout_ = new QVBoxLayout;
    layout->addLayout(rowsLayout_);
    auto* add = new QPushButton(tr("&Add a field"));
    add->setObjectName(QStringLiteral("sweepAddRow"));
    connect(add, &QPushButton::clicked, this, [this] { addRow(QStringLiteral("workers"), {}); });
    auto* addLine = new QHBoxLayout;
    addLine->addWidget(add);
    addLine->addStretch();
    layout->addLayout(addLine);
    summary_ = new QLabel;
    summary_->setObjectName(QStringLiteral("sweepSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    layout->addStretch();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    start_ = buttons->button(QDialogButtonBox::Ok);
    start_->setText(tr("Start sweep"));
    start_->setObjectName(QStringLiteral("sweepStart"));
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (!runs_.empty())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    if (base.sweep.empty())
        addRow(QStringLiteral("workers"), {});
    for (const SweepAxis& axis : base.sweep)
        addRow(QString::fromStdString(axis.key), axisText(axis));
    resize(560, 0);
    fitHeight();
}

void SweepDialog::fitHeight() {
    // The wrapped texts' height at the dialog's width (a top-level widget's
    // minimum size does not follow height-for-width).
    const QLayout* l = layout();
    const int needed =
        l->hasHeightForWidth() ? l->totalHeightForWidth(width()) : l->totalSizeHint().height();
    if (needed > height())
        resize(width(), needed);
}

void SweepDialog::addRow(const QString& key, const QString& values) {
    Row row;
    row.box = new QWidget;
    auto* line = new QHBoxLayout(row.box);
    line->setContentsMargins(0, 0, 0, 0);
    row.field = new QComboBox;
    for (const Field& f : experimentFields()) {
        if (f.output)
            continue; // each run of a sweep writes into its own folder
        row.field->addItem(QString::fromUtf8(f.key));
        row.field->setItemData(row.field->count() - 1, firstHelpLine(f), Qt::ToolTipRole);
    }
    row.field->setCurrentIndex(std::max(0, row.field->findText(key)));
    row.values = new QLineEdit;
    row.values->setPlaceholderText(tr("values, separated by commas"));
    row.remove = new QToolButton;
    row.remove->setText(QStringLiteral("−"));
    row.remove->setToolTip(tr("Remove this field from the sweep"));
    line->addWidget(row.field);
    line->addWidget(row.values, 1);
    line->addWidget(row.remove);
    QComboBox* field = row.field;
    QLineEdit* edit = row.values;
    // Another field: its value in the experiment, to add values to.
    const auto prefill = [this, field, edit] {
        field->setToolTip(field->currentData(Qt::ToolTipRole).toString());
        if (const Field* f = findField(field->currentText().toStdString()))
            edit->setText(QString::fromStdString(f->valueText(base_)));
    };
    prefill();
    if (!values.isNull())
        edit->setText(values);
    connect(field, &QComboBox::currentIndexChanged, this, prefill);
    connect(edit, &QLineEdit::textChanged, this, &SweepDialog::revalidate);
    connect(row.remove, &QToolButton::clicked, this, [this, box = row.box] { removeRow(box); });
    rows_.append(row);
    rowsLayout_->addWidget(row.box);
    row.box->show(); // now: a layout would show it only after the next events
    renumber();
    revalidate();
}

void SweepDialog::removeRow(QWidget* box) {
    if (rows_.size() <= 1)
        return;
    rows_.removeIf([box](const Row& row) { return row.box == box; });
    // Out of the dialog at once (a test finds the rows by name), deleted once
    // its button's click is over.
    box->hide();
    box->setParent(nullptr);
    box->deleteLater();
    renumber();
    revalidate();
}

void SweepDialog::renumber() {
    for (int i = 0; i < rows_.size(); ++i) {
        rows_[i].field->setObjectName(QStringLiteral("sweepField%1").arg(i));
        rows_[i].values->setObjectName(QStringLiteral("sweepValues%1").arg(i));
        rows_[i].remove->setObjectName(QStringLiteral("sweepRemove%1").arg(i));
        rows_[i].remove->setEnabled(rows_.size() > 1);
    }
}

void SweepDialog::setRows(const QList<QPair<QString, QString>>& rows) {
    while (rows_.size() > 1) {
        QWidget* box = rows_.takeLast().box;
        box->setParent(nullptr);
        box->deleteLater();
    }
    for (int i = 0; i < rows.size(); ++i) {
        if (i >= rows_.size()) {
            addRow(rows[i].first, rows[i].second);
            continue;
        }
        rows_[i].field->setCurrentIndex(std::max(0, rows_[i].field->findText(rows[i].first)));
        rows_[i].values->setText(rows[i].second);
    }
    renumber();
    revalidate();
}

QList<QPair<QString, QString>> SweepDialog::rowTexts() const {
    QList<QPair<QString, QString>> texts;
    for (const Row& row : rows_)
        texts.append({row.field->currentText(), row.values->text()});
    return texts;
}

std::vector<PresetRun> SweepDialog::plan(ExperimentConfig base, std::vector<SweepAxis> axes) {
    const bool workersSwept = std::any_of(axes.begin(), axes.end(),
                                          [](const SweepAxis& a) { return a.key == "workers"; });
    std::vector<std::string> swept;
    for (const SweepAxis& a : axes)
        swept.push_back(a.key);
    base.sweep = std::move(axes);
    std::vector<PresetRun> runs = sweepRuns(base);
    // A field the form holds for its own mode (a data-parallel transport)
    // is no part of a run of another mode: its default there, unless swept.
    // A mode that runs an exact number of workers (serial: 1) gets it,
    // unless workers are swept.
    for (PresetRun& run : runs) {
        resetInapplicableFields(run.config, [&](const Field& f) {
            return std::find(swept.begin(), swept.end(), f.key) == swept.end();
        });
        settleWorkerCount(run.config, workersSwept);
    }
    validateSweepRuns(runs);
    return runs;
}

void SweepDialog::revalidate() {
    runs_.clear();
    problem_.clear();
    std::vector<SweepAxis> axes;
    for (const Row& row : rows_) {
        const QString text =
            row.field->currentText() + QLatin1Char('=') + valueList(row.values->text());
        QString message;
        try {
            axes.push_back(parseSweepFlag(text.toStdString()));
        } catch (const std::exception& e) {
            message = inDialogWords(QString::fromStdString(e.what()));
        }
        markEditor(row.values, message);
        if (problem_.isEmpty())
            problem_ = message;
    }
    if (problem_.isEmpty()) {
        try {
            std::vector<SweepAxis> grid;
            for (SweepAxis& axis : axes)
                addSweepAxis(grid, std::move(axis));
            runs_ = plan(base_, std::move(grid));
        } catch (const std::exception& e) {
            problem_ = inDialogWords(QString::fromStdString(e.what()));
        }
    }
    start_->setEnabled(problem_.isEmpty() && !runs_.empty());
    if (!problem_.isEmpty()) {
        showSummary(shortened(problem_), true);
        return;
    }
    const QString first = QString::fromStdString(runs_.front().label);
    const QString last = QString::fromStdString(runs_.back().label);
    showSummary(runs_.size() == 1
                    ? tr("1 run: %1").arg(first)
                    : tr("%1 runs: %2 … %3").arg(qulonglong(runs_.size())).arg(first, last),
                false);
}

QString SweepDialog::summary() const {
    return summary_->text();
}

void SweepDialog::showSummary(const QString& text, bool error) {
    summary_->setText(text);
    fitHeight();
    const QString role = error ? QStringLiteral("error") : QString();
    if (summary_->property("hwlRole").toString() == role)
        return;
    summary_->setProperty("hwlRole", role);
    summary_->style()->unpolish(summary_);
    summary_->style()->polish(summary_);
}

} // namespace hwl::ui
