#include "form/datasetfields.h"

#include "widgets/formstyle.h"

#include "util/limits.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>

#include <exception>

namespace hwl::ui {

namespace {
using Kind = DatasetSpec::Kind;

/// A QDoubleSpinBox that shows 0.1 rather than 0.1000.
class CompactDoubleSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;

protected:
    QString textFromValue(double value) const override {
        return locale().toString(value, 'f', QLocale::FloatingPointShortest);
    }
};
} // namespace

DatasetFields::DatasetFields(bool fashionMnistAvailable, QWidget* parent)
    : QGroupBox(tr("Dataset"), parent) {
    form_ = makeForm(this);
    buildKindRow(fashionMnistAvailable);
    buildShapeRows();
    buildPathRows();
    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        updateVisibility();
        onEdited();
    });
    for (QSpinBox* spin : {rows_, dim_, classes_, hidden_, tokens_})
        connect(spin, &QSpinBox::valueChanged, this, &DatasetFields::onEdited);
    connect(path_, &QLineEdit::textChanged, this, &DatasetFields::onEdited);
    connect(testFraction_, &QDoubleSpinBox::valueChanged, this, &DatasetFields::onEdited);
    connect(normalize_, &QComboBox::currentTextChanged, this, &DatasetFields::onEdited);
    connect(browse_, &QPushButton::clicked, this, &DatasetFields::browse);
    setSpecText("random:10000x100:10");
    setTestFraction(0.1);
}

void DatasetFields::buildKindRow(bool fashionMnistAvailable) {
    kind_ = new QComboBox;
    kind_->setObjectName("datasetKind");
    const struct {
        Kind kind;
        QString text, tip;
    } kinds[] = {
        {Kind::Random, tr("random"),
         tr("randn features, uniform random labels: the blog's workload (not learnable; for "
            "throughput)")},
        {Kind::Teacher, tr("teacher"),
         tr("randn features, labels from a fixed random teacher MLP: learnable")},
        {Kind::SparseBow, tr("sparse-bow"),
         tr("Sparse bags of tokens, each class preferring its own part of the vocabulary")},
        {Kind::FashionMnist, tr("Fashion-MNIST"),
         tr("60000 + 10000 images of 28 x 28 pixels (Debian's dataset-fashion-mnist)")},
        {Kind::Idx, tr("IDX folder"),
         tr("A folder with train-images-idx3-ubyte, train-labels-idx1-ubyte (raw or .gz) and "
            "optional t10k-* test files")},
        {Kind::Csv, tr("CSV file"), tr("Integer label first, then the float features")},
        {Kind::Libsvm, tr("LIBSVM file"),
         tr("label index:value ... with 1-based indices; loaded sparse")},
    };
    for (const auto& k : kinds) {
        kind_->addItem(k.text, int(k.kind));
        kind_->setItemData(kind_->count() - 1, k.tip, Qt::ToolTipRole);
    }
    if (!fashionMnistAvailable) {
        const int i = kind_->findData(int(Kind::FashionMnist));
        if (auto* model = qobject_cast<QStandardItemModel*>(kind_->model())) {
            QStandardItem* item = model->item(i);
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
        }
        kind_->setItemData(i, tr("not installed: apt-get install dataset-fashion-mnist"),
                           Qt::ToolTipRole);
    }
    form_->addRow(tr("Source"), kind_);
}

void DatasetFields::buildShapeRows() {
    rows_ = makeCountSpin("datasetRows", 0, int(limits::kMaxRows), tr("Samples to generate"));
    dim_ = makeCountSpin("datasetDim", 0, int(limits::kMaxDim), tr("Features per sample"));
    classes_ = makeCountSpin("datasetClasses", 1, int(limits::kMaxClasses),
                             tr("Number of classes (labels 0..C-1)"));
    hidden_ = makeCountSpin("datasetHidden", 1, int(limits::kMaxHidden),
                            tr("Hidden width of the teacher MLP"));
    tokens_ = makeCountSpin("datasetTokens", 0, int(limits::kMaxTokens), tr("Tokens per row"));
    form_->addRow(tr("Rows"), rows_);
    form_->addRow(tr("Features"), dim_);
    form_->addRow(tr("Classes"), classes_);
    form_->addRow(tr("Teacher hidden"), hidden_);
    form_->addRow(tr("Tokens per row"), tokens_);
}

void DatasetFields::buildPathRows() {
    pathRow_ = new QWidget;
    auto* pathLayout = new QHBoxLayout(pathRow_);
    pathLayout->setContentsMargins(0, 0, 0, 0);
    path_ = new QLineEdit;
    path_->setObjectName("datasetPath");
    browse_ = new QPushButton(tr("Browse…"));
    browse_->setObjectName("datasetBrowse");
    pathLayout->addWidget(path_, 1);
    pathLayout->addWidget(browse_);
    form_->addRow(tr("Path"), pathRow_);

    error_ = new FieldNote; // typed (the path): hung under its field, never a row
    error_->setObjectName("datasetError");

    testFraction_ = new CompactDoubleSpinBox;
    testFraction_->setObjectName("testFraction");
    testFraction_->setRange(0.0, 0.99);
    testFraction_->setDecimals(4);
    testFraction_->setSingleStep(0.05);
    testFraction_->setToolTip(tr("Share of the rows held out as the test set (0: no test set)"));
    form_->addRow(tr("Test fraction"), testFraction_);
    testFractionError_ = new FieldNote;
    testFractionError_->setObjectName("testFractionError");
    testFractionError_->setAnchor(testFraction_);

    normalize_ = new QComboBox;
    normalize_->setObjectName("normalize");
    normalize_->setEditable(true);
    normalize_->addItems({QStringLiteral("none"), QStringLiteral("global"),
                          QStringLiteral("per-feature"), QStringLiteral("0.1307,0.3081")});
    normalize_->setToolTip(
        tr("Input normalisation, x' = (x - mean) / std: none; global or per-feature (the mean "
           "and standard deviation of the training rows); or MEAN,STD typed in (0.1307,0.3081 "
           "is PyTorch's MNIST example). Dense data only."));
    form_->addRow(tr("Normalize"), normalize_);
    normalizeError_ = new FieldNote;
    normalizeError_->setObjectName("normalizeError");
    normalizeError_->setAnchor(normalize_);
    note_ = makeNoteLabel("warning");
    note_->setObjectName("datasetNote");
    form_->addRow(note_);
}

Kind DatasetFields::kind() const {
    return Kind(kind_->currentData().toInt());
}

QString DatasetFields::specText() const {
    if (!raw_.isNull())
        return raw_;
    DatasetSpec spec;
    spec.kind = kind();
    if (isFileKind(spec.kind)) {
        // toString(spec) would go through std::filesystem::path; keep the text exactly.
        const char* prefix =
            spec.kind == Kind::Idx ? "idx:" : (spec.kind == Kind::Csv ? "csv:" : "libsvm:");
        return QString::fromLatin1(prefix) + path_->text();
    }
    spec.rows = rows_->value();
    spec.dim = dim_->value();
    spec.classes = classes_->value();
    spec.hidden = hidden_->value();
    spec.tokens = tokens_->value();
    return QString::fromStdString(toString(spec));
}

void DatasetFields::setSpecText(const QString& text) {
    filling_ = true;
    raw_ = QString();
    try {
        const DatasetSpec spec = parseDatasetSpec(text.toStdString());
        kind_->setCurrentIndex(kind_->findData(int(spec.kind)));
        if (isFileKind(spec.kind)) {
            path_->setText(text.mid(text.indexOf(QLatin1Char(':')) + 1));
        } else if (isSyntheticKind(spec.kind)) {
            rows_->setValue(int(spec.rows));
            dim_->setValue(int(spec.dim));
            classes_->setValue(spec.classes);
            hidden_->setValue(int(spec.hidden));
            tokens_->setValue(int(spec.tokens));
        }
    } catch (const std::exception&) {
        // Show the kind (and the path) the text names, where it names one.
        const QString name = text.section(QLatin1Char(':'), 0, 0);
        const struct {
            const char* name;
            Kind kind;
        } names[] = {{"random", Kind::Random},
                     {"teacher", Kind::Teacher},
                     {"sparse-bow", Kind::SparseBow},
                     {"fashion-mnist", Kind::FashionMnist},
                     {"idx", Kind::Idx},
                     {"csv", Kind::Csv},
                     {"libsvm", Kind::Libsvm}};
        for (const auto& n : names) {
            if (name != QLatin1String(n.name))
                continue;
            kind_->setCurrentIndex(kind_->findData(int(n.kind)));
            if (isFileKind(n.kind))
                path_->setText(text.section(QLatin1Char(':'), 1));
        }
        raw_ = text.isNull() ? QStringLiteral("") : text;
    }
    filling_ = false;
    updateVisibility();
}

double DatasetFields::testFraction() const {
    return testFraction_->value();
}

void DatasetFields::setTestFraction(double fraction) {
    filling_ = true;
    testFraction_->setValue(fraction);
    filling_ = false;
}

QString DatasetFields::normalizeText() const {
    return normalize_->currentText().trimmed();
}

void DatasetFields::setNormalizeText(const QString& text) {
    filling_ = true;
    normalize_->setCurrentText(text);
    filling_ = false;
}

QWidget* DatasetFields::mainEditor() const {
    return isFileKind(kind()) ? static_cast<QWidget*>(path_) : kind_;
}

void DatasetFields::onEdited() {
    if (filling_)
        return;
    if (sender() != testFraction_ && sender() != normalize_)
        raw_ = QString();
    emit edited();
}

void DatasetFields::browse() {
    const QString start = QFileInfo(path_->text()).absolutePath();
    QString chosen;
    switch (kind()) {
    case Kind::Idx:
        chosen = QFileDialog::getExistingDirectory(this, tr("IDX folder"), path_->text());
        break;
    case Kind::Csv:
        chosen = QFileDialog::getOpenFileName(this, tr("CSV file"), start,
                                              tr("CSV files (*.csv *.txt);;All files (*)"));
        break;
    case Kind::Libsvm:
        chosen =
            QFileDialog::getOpenFileName(this, tr("LIBSVM file"), start,
                                         tr("LIBSVM files (*.svm *.libsvm *.txt);;All files (*)"));
        break;
    default:
        return;
    }
    if (!chosen.isEmpty())
        path_->setText(chosen);
}

void DatasetFields::updateVisibility() {
    const Kind k = kind();
    const bool synthetic = isSyntheticKind(k);
    for (QWidget* w : {static_cast<QWidget*>(rows_), static_cast<QWidget*>(dim_),
                       static_cast<QWidget*>(classes_)})
        form_->setRowVisible(w, synthetic);
    form_->setRowVisible(hidden_, k == Kind::Teacher);
    form_->setRowVisible(tokens_, k == Kind::SparseBow);
    form_->setRowVisible(pathRow_, isFileKind(k));
    error_->setAnchor(mainEditor(), this); // shown while any dataset field is in use
    if (auto* label = qobject_cast<QLabel*>(form_->labelForField(dim_)))
        label->setText(k == Kind::SparseBow ? tr("Vocabulary") : tr("Features"));
    dim_->setToolTip(k == Kind::SparseBow ? tr("Distinct token ids (the vocabulary)")
                                          : tr("Features per sample"));
    path_->setPlaceholderText(k == Kind::Idx ? tr("folder with train-*-ubyte files") : tr("file"));
    browse_->setToolTip(k == Kind::Idx ? tr("Choose a folder") : tr("Choose a file"));
    testFraction_->setEnabled(k != Kind::FashionMnist);
    QString note;
    if (k == Kind::FashionMnist)
        note = tr("Fashion-MNIST brings its own test set (10000 images); the test fraction is "
                  "not used.");
    else if (k == Kind::Idx)
        note = tr("The test fraction is used only when the folder has no t10k-* files.");
    setNote(note_, note);
}

} // namespace hwl::ui
