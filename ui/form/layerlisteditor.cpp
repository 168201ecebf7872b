#include "form/layerlisteditor.h"

#include "widgets/formstyle.h"
#include "widgets/numbers.h"

#include "model/layers.h"
#include "model/modelspec.h"
#include "util/errors.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QStyle>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace hwl::ui {

namespace {

/// Rows the table shows before it scrolls: cnn:mnist's twelve fit.
constexpr int kShownRows = 13;

/// The row a refusal names: the engine writes "layer N (TEXT) ..." for the
/// N-th layer (model/layers.h).
int namedRow(const QString& message) {
    static const QRegularExpression named(QStringLiteral("^layer (\\d+) \\("));
    const QRegularExpressionMatch match = named.match(message);
    return match.hasMatch() ? match.captured(1).toInt() - 1 : -1;
}

/// The shapes of the first `count` layers, which fit: describeLayers()
/// checks a whole network, its end included, so they are described as the
/// start of one closed by flatten and fc2, which fit any shape before them.
std::vector<LayerInfo> describedBefore(const TensorShape& input, std::vector<Layer> layers,
                                       std::size_t count) {
    if (count == 0 || count > layers.size())
        return {};
    layers.resize(count);
    Layer flatten, fc;
    flatten.op = Layer::Op::Flatten;
    fc.op = Layer::Op::Fc;
    fc.size = 2;
    layers.push_back(flatten);
    layers.push_back(fc);
    try {
        std::vector<LayerInfo> infos = describeLayers(input, layers);
        infos.resize(count);
        return infos;
    } catch (const InputError&) {
        return {};
    }
}

/// "250 weights (10x1x5x5) and 10 biases": a layer's tensors, as nn.Conv2d
/// and nn.Linear hold them.
QString parametersTip(const LayerInfo& info) {
    const Layer& layer = info.layer;
    const QString shape =
        layer.op == Layer::Op::Conv
            ? QStringLiteral("%1x%2x%3x%3").arg(layer.size).arg(info.in.channels).arg(layer.kernel)
            : QStringLiteral("%1x%2").arg(layer.size).arg(info.in.size());
    return LayerListEditor::tr("%1 weights (%2) and %3 biases")
        .arg(formatCount(info.weights), shape, formatCount(info.biases));
}

/// The table, able to say whether a row is being edited (its keys are
/// then the row editor's, not the list's).
class LayerTable : public QTableWidget {
public:
    using QTableWidget::QTableWidget;
    bool editing() const { return state() == EditingState; }
};

QToolButton* makeButton(const QString& text, const QString& name, const QString& tip) {
    auto* button = new QToolButton;
    button->setText(text);
    button->setAccessibleName(name);
    button->setToolTip(tip);
    button->setFocusPolicy(Qt::StrongFocus); // reached by Tab, as the form's other buttons
    return button;
}

} // namespace

LayerListEditor::LayerListEditor(QWidget* parent) : QWidget(parent) {
    shape_ = new QLineEdit;
    shape_->setObjectName("modelInputShape");
    shape_->setAccessibleName(tr("Input shape"));
    shape_->setPlaceholderText("1x28x28");
    shape_->setToolTip(tr("One sample's shape: CxHxW (channels, height, width: 1x28x28 for "
                          "Fashion-MNIST) or N (a vector of N features); the dataset's features "
                          "are read channel by channel, each row by row"));

    table_ = new LayerTable(0, 3);
    table_->setObjectName("modelLayers");
    table_->setAccessibleName(tr("Layers"));
    table_->setHorizontalHeaderLabels({tr("Layer"), tr("Output"), tr("Parameters")});
    table_->horizontalHeaderItem(ShapeColumn)
        ->setToolTip(tr("The shape of one sample after the layer: CxHxW or N"));
    table_->horizontalHeaderItem(ParametersColumn)
        ->setToolTip(tr("The layer's weights and biases"));
    table_->setToolTip(tr("The network's layers in order, first to last; each row's number is "
                          "the one the engine's messages name. Insert adds a layer, Delete "
                          "removes one, Ctrl+Up and Ctrl+Down move it, F2 edits it."));
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                            QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table_->setTabKeyNavigation(false); // Tab leaves the table, as in the rest of the form
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().lineSpacing() + 8);
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(TextColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(ShapeColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(ParametersColumn, QHeaderView::ResizeToContents);
    table_->installEventFilter(this);

    add_ = makeButton(tr("Add"), tr("Add layer"),
                      tr("Add a layer after the selected one, and edit it (Insert)"));
    add_->setObjectName("modelLayerAdd");
    remove_ =
        makeButton(tr("Remove"), tr("Remove layer"), tr("Remove the selected layer (Delete)"));
    remove_->setObjectName("modelLayerRemove");
    up_ = makeButton(tr("Up"), tr("Move layer up"), tr("Move the selected layer up (Ctrl+Up)"));
    up_->setObjectName("modelLayerUp");
    down_ = makeButton(tr("Down"), tr("Move layer down"),
                       tr("Move the selected layer down (Ctrl+Down)"));
    down_->setObjectName("modelLayerDown");

    total_ = new QLabel;
    total_->setObjectName("modelParameters");
    total_->setToolTip(tr("The network's weights and biases, every layer's"));

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    for (QToolButton* button : {add_, remove_, up_, down_})
        buttons->addWidget(button);
    buttons->addStretch(1);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(table_);
    column->addLayout(buttons);
    column->addWidget(total_);

    connect(table_, &QTableWidget::itemChanged, this, &LayerListEditor::onItemChanged);
    connect(table_, &QTableWidget::currentCellChanged, this, &LayerListEditor::updateButtons);
    connect(shape_, &QLineEdit::textChanged, this, [this] {
        if (filling_)
            return;
        refresh();
        emit edited();
    });
    connect(add_, &QToolButton::clicked, this, &LayerListEditor::addLayer);
    connect(remove_, &QToolButton::clicked, this, &LayerListEditor::removeLayer);
    connect(up_, &QToolButton::clicked, this, [this] { moveLayer(-1); });
    connect(down_, &QToolButton::clicked, this, [this] { moveLayer(1); });
    setList(QStringLiteral("784"),
            {QStringLiteral("fc128"), QStringLiteral("relu"), QStringLiteral("fc10")});
}

void LayerListEditor::setList(const QString& shape, const QStringList& layers) {
    heldRows_ = 0; // another list: its own height
    filling_ = true;
    shape_->setText(shape);
    filling_ = false;
    setRows(layers, layers.isEmpty() ? -1 : 0);
}

QString LayerListEditor::shapeText() const {
    return shape_->text().trimmed();
}

QStringList LayerListEditor::layerTexts() const {
    QStringList texts;
    for (int row = 0; row < table_->rowCount(); ++row) {
        const QTableWidgetItem* item = table_->item(row, TextColumn);
        texts << (item ? item->text().trimmed() : QString());
    }
    return texts;
}

QString LayerListEditor::specText() const {
    const QString text = QStringLiteral("net:") + shapeText() + QLatin1Char(':') +
                         layerTexts().join(QLatin1Char(','));
    try {
        return QString::fromStdString(toString(parseModelSpec(text.toStdString())));
    } catch (const InputError&) {
        return text;
    }
}

bool LayerListEditor::usesDropoutField() const {
    ModelSpec spec;
    spec.kind = ModelSpec::Kind::Net;
    for (const QString& text : layerTexts()) {
        try {
            for (const Layer& layer : parseLayers(text.toStdString()))
                spec.net.push_back(layer);
        } catch (const InputError&) {
            // A row the engine refuses takes no field; the list's refusal says why.
        }
    }
    return spec.usesDropoutField();
}

void LayerListEditor::addLayer() {
    QStringList texts = layerTexts();
    const int row = table_->currentRow() < 0 ? int(texts.size()) : table_->currentRow() + 1;
    texts.insert(row, QStringLiteral("relu"));
    setRows(texts, row);
    emit edited();
    if (table_->isVisible()) {
        table_->setFocus(Qt::OtherFocusReason);
        table_->editItem(table_->item(row, TextColumn));
    }
}

void LayerListEditor::removeLayer() {
    const int row = table_->currentRow();
    if (row < 0)
        return;
    QStringList texts = layerTexts();
    texts.removeAt(row);
    // The table keeps its height while layers go, so that Remove stays
    // under the pointer for the next one.
    heldRows_ = std::max(heldRows_, int(table_->rowCount()));
    setRows(texts, std::min(row, int(texts.size()) - 1));
    emit edited();
}

void LayerListEditor::moveLayer(int by) {
    const int row = table_->currentRow(), target = row + by;
    if (row < 0 || target < 0 || target >= table_->rowCount())
        return;
    QStringList texts = layerTexts();
    texts.move(row, target);
    setRows(texts, target);
    emit edited();
}

bool LayerListEditor::eventFilter(QObject* watched, QEvent* event) {
    if (watched != table_ || event->type() != QEvent::KeyPress ||
        static_cast<LayerTable*>(table_)->editing())
        return QWidget::eventFilter(watched, event);
    const auto* key = static_cast<QKeyEvent*>(event);
    const bool ctrl = key->modifiers() == Qt::ControlModifier;
    if (key->key() == Qt::Key_Insert && key->modifiers() == Qt::NoModifier)
        addLayer();
    else if (key->key() == Qt::Key_Delete && key->modifiers() == Qt::NoModifier)
        removeLayer();
    else if (ctrl && (key->key() == Qt::Key_Up || key->key() == Qt::Key_Down))
        moveLayer(key->key() == Qt::Key_Up ? -1 : 1);
    else if (key->matches(QKeySequence::Paste) &&
             !QGuiApplication::clipboard()->text().trimmed().isEmpty()) {
        // Pasted on the list (no row being edited): as into the current row.
        pasteList(std::max(table_->currentRow(), 0), QGuiApplication::clipboard()->text());
        emit edited();
    } else
        return QWidget::eventFilter(watched, event);
    return true;
}

void LayerListEditor::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && table_)
        refresh();
}

void LayerListEditor::onItemChanged(QTableWidgetItem* item) {
    if (filling_ || item->column() != TextColumn)
        return;
    const int row = item->row();
    const QString text = item->text();
    QStringList texts = layerTexts();
    if (text.contains(QLatin1Char(','))) {
        pasteList(row, text);
    } else {
        if (text != text.trimmed()) {
            filling_ = true;
            item->setText(text.trimmed());
            filling_ = false;
        }
        refresh();
    }
    emit edited();
}

void LayerListEditor::pasteList(int row, QString text) {
    text = text.trimmed();
    QString shape;
    if (text.startsWith(QLatin1String("net:"))) { // --model's whole spec: its shape too
        shape = text.section(QLatin1Char(':'), 1, 1);
        text = text.section(QLatin1Char(':'), 2);
    }
    QStringList parts = text.split(QLatin1Char(','));
    for (QString& part : parts)
        part = part.trimmed();
    // A whole network (a spec, or a list that ends in the fc every network
    // ends in) replaces the list; a few layers replace the row they went in.
    bool whole = !shape.isEmpty();
    try {
        const std::vector<Layer> last = parseLayers(parts.back().toStdString());
        whole = whole || (!last.empty() && last.back().op == Layer::Op::Fc);
    } catch (const InputError&) {
        // Not a layer: the row shows the engine's refusal.
    }
    QStringList texts = layerTexts();
    if (whole) {
        texts = parts;
        row = 0;
    } else {
        texts.removeAt(row);
        for (int i = 0; i < parts.size(); ++i)
            texts.insert(row + i, parts[i]);
    }
    if (!shape.isEmpty()) {
        filling_ = true;
        shape_->setText(shape);
        filling_ = false;
    }
    setRows(texts, row);
}

void LayerListEditor::setRows(const QStringList& layers, int current) {
    filling_ = true;
    table_->setRowCount(int(layers.size()));
    for (int row = 0; row < layers.size(); ++row) {
        for (int column : {TextColumn, ShapeColumn, ParametersColumn}) {
            QTableWidgetItem* item = table_->item(row, column);
            if (!item) {
                item = new QTableWidgetItem;
                if (column != TextColumn)
                    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
                if (column == ParametersColumn)
                    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                table_->setItem(row, column, item);
            }
        }
        table_->item(row, TextColumn)->setText(layers[row]);
    }
    if (current >= 0 && current < table_->rowCount())
        table_->setCurrentCell(current, TextColumn);
    filling_ = false;
    fitHeight();
    refresh();
    updateButtons();
}

void LayerListEditor::refresh() {
    problem_.clear();
    problemRow_ = -1;
    shapeWrong_ = false;
    parameters_ = -1;
    const QStringList texts = layerTexts();
    std::vector<LayerInfo> infos;
    TensorShape input;
    try {
        input = parseInputShape(shapeText().toStdString());
    } catch (const InputError& e) {
        problem_ = QString::fromUtf8(e.what());
        shapeWrong_ = true;
    }
    std::vector<Layer> layers;
    if (!shapeWrong_) {
        try {
            layers = parseLayers(texts.join(QLatin1Char(',')).toStdString());
            infos = describeLayers(input, layers);
            parameters_ = hwl::parameterCount(infos);
        } catch (const InputError& e) {
            problem_ = QString::fromUtf8(e.what());
            problemRow_ = namedRow(problem_);
            std::size_t fit = std::size_t(std::max(problemRow_, 0));
            // No layer named, the layers parsed: the list's end is wrong (not
            // fcN, or fc1), which the last row says.
            if (problemRow_ < 0 && !layers.empty()) {
                problemRow_ = int(layers.size()) - 1;
                fit = layers.size();
            }
            if (layers.empty() && problemRow_ > 0) { // a row that does not parse
                try {
                    layers = parseLayers(texts.mid(0, problemRow_).join(',').toStdString());
                } catch (const InputError&) {
                    layers.clear();
                }
            }
            infos = describedBefore(input, layers, fit);
        }
    }
    showDescription(infos);
}

void LayerListEditor::showDescription(const std::vector<LayerInfo>& infos) {
    filling_ = true;
    for (int row = 0; row < table_->rowCount(); ++row) {
        const bool known = std::size_t(row) < infos.size();
        QTableWidgetItem* shape = table_->item(row, ShapeColumn);
        QTableWidgetItem* parameters = table_->item(row, ParametersColumn);
        shape->setText(known ? QString::fromStdString(toString(infos[row].out)) : QString());
        const bool weighted = known && infos[row].layer.hasParameters();
        parameters->setText(weighted ? formatCount(infos[row].weights + infos[row].biases)
                                     : QString());
        parameters->setToolTip(weighted ? parametersTip(infos[row]) : QString());
        markRow(row, row == problemRow_ ? problem_ : QString());
    }
    filling_ = false;
    setNote(total_, parameters_ >= 0 ? tr("%1 parameters").arg(formatCount(parameters_))
                                     : tr("Parameters: not known until the list is valid"));
}

void LayerListEditor::markRow(int row, const QString& message) {
    const bool dark = palette().color(QPalette::Window).lightness() < 128; // as ErrorFrame
    const QVariant red =
        message.isEmpty() ? QVariant() : QVariant(QBrush(QColor(QLatin1String(errorColour(dark)))));
    for (int column : {TextColumn, ShapeColumn, ParametersColumn})
        table_->item(row, column)->setData(Qt::ForegroundRole, red);
    QTableWidgetItem* text = table_->item(row, TextColumn);
    text->setData(Qt::DecorationRole,
                  message.isEmpty()
                      ? QVariant()
                      : QVariant(style()->standardIcon(QStyle::SP_MessageBoxCritical)));
    text->setToolTip(message);
    text->setData(Qt::AccessibleDescriptionRole, message.isEmpty() ? QVariant() : message);
}

void LayerListEditor::updateButtons() {
    const int row = table_->currentRow(), rows = table_->rowCount();
    remove_->setEnabled(row >= 0);
    up_->setEnabled(row > 0);
    down_->setEnabled(row >= 0 && row + 1 < rows);
}

void LayerListEditor::fitHeight() {
    // The whole list in view up to kShownRows rows (the form scrolls, not
    // the table), and room for three rows while it is shorter.
    const int rows = std::clamp(table_->rowCount(), std::max(3, heldRows_), kShownRows);
    table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() +
                           rows * table_->verticalHeader()->defaultSectionSize() +
                           2 * table_->frameWidth());
}

} // namespace hwl::ui
