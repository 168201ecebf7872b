#pragma once
// ScalingChart: a final figure of a set of runs against one experiment field,
// one line per value of a second field ("samples/s against workers, one line
// per mode"). Three combo boxes choose the figure, the field along x (the
// numeric ones first) and the field that splits the lines (or none). Each
// line runs through its runs' points in the order of x; runs that share a
// line and an x are averaged into one point. A numeric field is drawn on a
// value axis, any other one value per category in its sorted order. Runs
// without the figure or the field are left out. GUI thread only.
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QWidget>

class QChart;
class QComboBox;
class QLabel;
class QLineSeries;

namespace hwl::ui {

class ChartView;

class ScalingChart : public QWidget {
    Q_OBJECT

public:
    /// One run: its fields (key -> value text) and its figures, in the order
    /// of setData()'s `figures` (NaN: not known).
    struct Row {
        QMap<QString, QString> fields;
        QList<double> figures;
    };

    explicit ScalingChart(QWidget* parent = nullptr);

    /// The figures to choose from, the fields (x and lines) and the runs.
    /// The choices made stay when they are still offered.
    void setData(const QStringList& figures, const QStringList& fields, const QList<Row>& rows);

    QComboBox* figureBox() const { return figure_; }
    QComboBox* againstBox() const { return against_; }
    QComboBox* lineBox() const { return line_; }
    QChart* chart() const { return chart_; }
    /// The lines drawn, one per value of the "one line per" field.
    QList<QLineSeries*> series() const;
    /// "(none)": the line box's first entry.
    static QString noLines();

private:
    void redraw();
    /// The x of each point: the value itself, or its category's index.
    void setUpAxes(const QString& field, bool numeric, const QStringList& categories);

    QComboBox* figure_ = nullptr;
    QComboBox* against_ = nullptr;
    QComboBox* line_ = nullptr;
    QLabel* empty_ = nullptr;
    QChart* chart_ = nullptr;
    ChartView* view_ = nullptr;
    QStringList figures_;
    QList<Row> rows_;
    bool filling_ = false;
};

} // namespace hwl::ui
