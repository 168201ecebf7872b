#pragma once
// ScalingChart: a final figure of a set of runs against one experiment field,
// one line per value of a second field ("samples/s against workers, one line
// per mode"). Three combo boxes choose the figure, the field along x (the
// numeric ones first) and the field that splits the lines (or none). Each
// line runs through its runs' points in the order of x; runs that share a
// line and an x are averaged into one point, drawn with an error bar from
// mean - sd to mean + sd (the sample standard deviation, io/runscompare.h's
// spreadOf), in the line's colour and out of the legend; a point of one run
// has none. Hovering a point or its bar says its mean ± sd over how many
// runs. The y axis covers every line and bar, with as many ticks as the
// chart's height holds ("112.5k", "2M"). A numeric field is drawn along x
// at its values (whole numbers for a field of whole numbers), any other one
// value per category in its sorted order. By default x is workers when it
// varies, and the lines split by mode, model or dataset, so that runs of
// unrelated lessons never share a line. Runs without the figure or the
// field are left out. GUI thread only.
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cmath>

class QCategoryAxis;

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
    /// A point drawn: its x, the mean of the figure over its runs, their
    /// sample standard deviation (NaN for one run) and how many they are.
    struct Point {
        double x = 0, mean = 0, sd = NAN;
        int n = 0;
    };

    /// The lines drawn, one per value of the "one line per" field (not
    /// their error bars).
    QList<QLineSeries*> series() const;
    /// Line `line`'s points, in the order of x.
    QList<Point> points(int line) const;
    /// The error bar of point `point` of line `line` (its stem from mean -
    /// sd to mean + sd, a short cap at each end); nullptr for one run.
    QLineSeries* errorBar(int line, int point) const;
    /// What hovering the point (or its bar) says.
    QString pointText(int line, int point) const;
    /// "(none)": the line box's first entry.
    static QString noLines();

private:
    /// A line as drawn: its series, its points and their error bars.
    struct Line {
        QLineSeries* series = nullptr;
        QList<Point> points;
        QList<QLineSeries*> bars; ///< per point; nullptr: none
    };
    void redraw();
    /// Adds line `line`'s error bars (caps `cap` wide each side in x units).
    void addErrorBars(int line, double cap);
    /// Shows the hover text of `point` of `line` (-1: none).
    void hover(int line, int point);
    /// The x of each point: the value itself, or its category's index.
    void setUpAxes(const QString& field, bool numeric, const QStringList& categories);
    /// Ticks and titles for the chart's size: as many y ticks as fit, with
    /// short labels ("112.5k", "2M"); whole numbers along x when the field
    /// holds only whole numbers (workers); the y title only where it fits.
    void fitTicks();
    void resizeEvent(QResizeEvent* event) override;

    QComboBox* figure_ = nullptr;
    QComboBox* against_ = nullptr;
    QComboBox* line_ = nullptr;
    QLabel* empty_ = nullptr;
    QChart* chart_ = nullptr;
    ChartView* view_ = nullptr;
    QStringList figures_;
    QList<Row> rows_;
    QList<Line> lines_;
    QString drawnAgainst_;           ///< the field along x as drawn
    QStringList categories_;         ///< its values when they are not numbers
    QCategoryAxis* xAxis_ = nullptr; ///< a numeric field's axis; nullptr for categories
    QCategoryAxis* yAxis_ = nullptr;
    double xLow_ = 0, xHigh_ = 0, yLow_ = 0, yHigh_ = 0; ///< what the axes must hold
    bool wholeX_ = false;                                ///< every x a whole number
    bool filling_ = false;
};

} // namespace hwl::ui
