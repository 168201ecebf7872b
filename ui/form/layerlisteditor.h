#pragma once
// The Model group's editor of a layer list (`--model net:SHAPE:LAYER,...`,
// ModelSpec::Kind::Net): the input shape, one table row per layer (its
// text, editable in place, the shape after it and its parameters), buttons
// to add, remove and move rows, and the network's parameter count.
//
// The shapes, counts and refusals are the engine's own (describeLayers(),
// parseModelSpec() in model/layers.h, model/modelspec.h): the editor only
// shows them. When the list is not a valid network, the row the engine
// names ("layer 3 (conv4k50) has a kernel of 50 ...") is marked (red text,
// an error icon, the message as its tooltip), the rows before it still show
// their shapes, and the form shows the message at the Model group and keeps
// Start disabled through its usual validation.
//
// Keys while the table has the focus: Insert adds a layer after the current
// one, Delete removes it, Ctrl+Up / Ctrl+Down move it, F2 or typing edits
// it. A text with commas ("relu,fc10", pasted from a --model) becomes one
// row per layer. GUI thread only.
#include "model/layers.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QLabel;
class QLineEdit;
class QToolButton;
class QTableWidget;
class QTableWidgetItem;

namespace hwl::ui {

class LayerListEditor : public QWidget {
    Q_OBJECT
public:
    enum Column { TextColumn, ShapeColumn, ParametersColumn };

    explicit LayerListEditor(QWidget* parent = nullptr);

    /// Shows `shape` and one row per layer text; not an edit.
    void setList(const QString& shape, const QStringList& layers);
    /// The `net:` text of the widgets: canonical (toString(ModelSpec)) when
    /// the engine accepts it, else as typed (rows joined by commas).
    QString specText() const;
    QString shapeText() const;
    QStringList layerTexts() const;

    /// The engine's refusal of the list alone (its shape, its layers), or
    /// empty when it describes a valid network.
    QString problem() const { return problem_; }
    /// The row the refusal names, or -1 (a valid list, a bad shape, an
    /// empty list).
    int problemRow() const { return problemRow_; }
    /// Whether the refusal is about the input shape.
    bool shapeIsWrong() const { return shapeWrong_; }
    /// The network's weights and biases, or -1 while the list is invalid.
    std::int64_t parameterCount() const { return parameters_; }
    /// Whether a layer takes the experiment's dropout field
    /// (ModelSpec::usesDropoutField() of the rows that parse).
    bool usesDropoutField() const;

    /// The input shape's line edit: its owner puts it on a row of the Model
    /// group's form (so that its label lines up with the group's).
    QLineEdit* shapeEdit() const { return shape_; }
    QTableWidget* table() const { return table_; }
    QLabel* totalLabel() const { return total_; }
    QToolButton* addButton() const { return add_; }
    QToolButton* removeButton() const { return remove_; }
    QToolButton* upButton() const { return up_; }
    QToolButton* downButton() const { return down_; }

    /// What the buttons do, on the current row.
    void addLayer();
    void removeLayer();
    void moveLayer(int by);

signals:
    /// Any edit by the user or through the buttons (not by setList()).
    void edited();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    /// A new palette (the window's light or dark theme): the marked row's red again.
    void changeEvent(QEvent* event) override;

private:
    void onItemChanged(QTableWidgetItem* item);
    void setRows(const QStringList& layers, int current);
    void refresh();
    void showDescription(const std::vector<LayerInfo>& infos);
    void markRow(int row, const QString& message);
    void updateButtons();
    void fitHeight();
    /// `text`, a comma list (or --model's net: spec) pasted into `row`: a
    /// whole network (a spec, or a list ending in fc) replaces the list and
    /// a spec's shape the input shape; a few layers replace that row.
    void pasteList(int row, QString text);

    QLineEdit* shape_ = nullptr;
    QTableWidget* table_ = nullptr;
    QToolButton* add_ = nullptr;
    QToolButton* remove_ = nullptr;
    QToolButton* up_ = nullptr;
    QToolButton* down_ = nullptr;
    QLabel* total_ = nullptr;
    QString problem_;
    int problemRow_ = -1;
    bool shapeWrong_ = false;
    std::int64_t parameters_ = -1;
    bool filling_ = false;
    int heldRows_ = 0; ///< rows' height the table keeps while layers are removed
};

} // namespace hwl::ui
