#pragma once
// ScalingChart: a final figure of a set of runs against one experiment field
// ("samples/s against workers"). Two combo boxes choose the figure and the
// field along x (the numeric ones first; workers by default). Only runs that
// differ in nothing but that field and their seed share a line: the others
// are lines of their own, each named by what sets it apart from the rest
// ("mode=threads, dataset=teacher:4000x20:4"), so runs of unrelated lessons
// never share one. Each line runs through its runs' points in the order of
// x; runs that share a line and an x (repeats) are averaged into one point,
// drawn with an error bar from mean - sd to mean + sd (the sample standard
// deviation, io/runscompare.h's spreadOf) in the line's colour; a point of
// one run has none. Hovering a point or its bar says its mean ± sd over how
// many runs. A run that failed (or was refused) is no point, and a note
// under the chart says how many were left out and why. The axes hold every
// line and bar and, the figures and the numeric fields being counts, rates,
// shares and times, never run below zero; as many ticks as the chart's
// size holds ("112.5k", "2M"), margins for the labels at the ends, and the
// legend under the chart in words that wrap, never elided. A numeric field
// is drawn along x at its values (whole numbers for a field of whole
// numbers), any other one value per category in its sorted order. GUI
// thread only.
#include <QList>
#include <QMap>
#include <QPointF>
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
        QString result; ///< how it ended (SavedRun::result); "failed", "refused": no point
    };

    explicit ScalingChart(QWidget* parent = nullptr);

    /// The figures to choose from, the fields (x and lines) and the runs.
    /// The choices made stay when they are still offered.
    void setData(const QStringList& figures, const QStringList& fields, const QList<Row>& rows);

    QComboBox* figureBox() const { return figure_; }
    QComboBox* againstBox() const { return against_; }
    QChart* chart() const { return chart_; }
    /// The legend under the chart (rich text, wrapped) and the note on the
    /// runs left out ("1 failed run is no point"); empty when none.
    QLabel* legend() const { return legend_; }
    QLabel* leftOutNote() const { return leftOut_; }
    /// A point drawn: its x, the mean of the figure over its runs, their
    /// sample standard deviation (NaN for one run) and how many they are.
    struct Point {
        double x = 0, mean = 0, sd = NAN;
        int n = 0;
    };

    /// The lines drawn, one per set of runs alike but in x and seed (not
    /// their error bars).
    QList<QLineSeries*> series() const;
    /// Line `line`'s points, in the order of x.
    QList<Point> points(int line) const;
    /// The error bar of point `point` of line `line` (its stem from mean -
    /// sd to mean + sd, a short cap at each end); nullptr for one run.
    QLineSeries* errorBar(int line, int point) const;
    /// What hovering the point (or its bar) says.
    QString pointText(int line, int point) const;

private:
    /// A line as drawn: its series, its points and their error bars.
    struct Line {
        QLineSeries* series = nullptr;
        QList<Point> points;
        QList<QLineSeries*> bars; ///< per point; nullptr: none
    };
    void redraw();
    /// Draws line `line` (number `index`) as dots alone: along categories,
    /// which have no order, no line joins them.
    void addDots(Line& line, int index);
    /// Adds line `line`'s error bars (caps `cap` wide each side in x units).
    void addErrorBars(int line, double cap);
    /// Hovering line `line` at `at` (or leaving it): its point nearest in x.
    void hoverNear(int line, const QPointF& at, bool on);
    /// Shows the hover text of `point` of `line` (-1: none).
    void hover(int line, int point);
    /// The x of each point: the value itself, or its category's index.
    void setUpAxes(const QString& field, bool numeric, const QStringList& categories);
    /// Ticks and titles for the chart's size: as many y ticks as fit, with
    /// short labels ("112.5k", "2M"); whole numbers along x when the field
    /// holds only whole numbers (workers); the y title only where it fits;
    /// margins that hold the labels at the axes' ends.
    void fitTicks();
    /// The lines' legend under the chart, in their colours.
    void fillLegend();
    void resizeEvent(QResizeEvent* event) override;

    QComboBox* figure_ = nullptr;
    QComboBox* against_ = nullptr;
    QLabel* empty_ = nullptr;
    QLabel* legend_ = nullptr;
    QLabel* leftOut_ = nullptr;
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
