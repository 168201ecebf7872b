#pragma once
// The race stepper: two workers' update of ONE shared parameter, each as
// read / compute / write, laid out on a timeline. The teacher picks an
// interleaving (or a random one) and steps through it, seeing what each
// worker holds, what the parameter ends at and which write is lost.
// RaceModel is the arithmetic (no widgets, tested on its own);
// RaceStepperDialog shows it. GUI thread only.
#include <QDialog>
#include <QString>
#include <QVector>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace hwl::ui {

class RaceModel {
public:
    struct Op {
        int worker; ///< 0: A, 1: B
        int phase;  ///< 0 read, 1 compute, 2 write
    };
    static constexpr double kStart = 1.0;
    static constexpr double kUpdate[2] = {-0.1, -0.3}; ///< each worker's -lr * gradient

    /// Every order of A's three ops and B's three ops that keeps each
    /// worker's own order (20 of them), serial ones first.
    static QVector<QVector<Op>> interleavings();
    /// "A reads, B reads, A computes, ...": an interleaving in words.
    static QString describe(const QVector<Op>& order);

    explicit RaceModel(QVector<Op> order = interleavings().front());
    const QVector<Op>& order() const { return order_; }
    int done() const { return done_; } ///< ops taken so far
    bool finished() const { return done_ == order_.size(); }
    /// Takes the next op; returns what it did, in words.
    QString step();
    void reset();

    double parameter() const { return p_; }
    double local(int worker) const { return local_[worker]; }
    /// What the parameter would end at with neither write lost.
    static double expected() { return kStart + kUpdate[0] + kUpdate[1]; }
    /// The worker whose write was lost (overwritten by a write computed
    /// from a value read before it), or -1 (none lost yet, or none at all).
    int lostWriter() const { return lost_; }
    /// At the end: what happened, in a sentence or two.
    QString verdict() const;

private:
    QVector<Op> order_;
    int done_ = 0;
    double p_ = kStart;
    double local_[2] = {0, 0};
    int readAt_[2] = {-1, -1};  ///< when each worker read (op index)
    int wroteAt_[2] = {-1, -1}; ///< when each worker wrote
    int lost_ = -1;
};

class RaceStepperDialog : public QDialog {
    Q_OBJECT
public:
    explicit RaceStepperDialog(QWidget* parent = nullptr);
    RaceModel& model() { return model_; }
    QComboBox* orderBox() const { return order_; }
    QString statusText() const;
    /// Chooses interleaving `index` of RaceModel::interleavings() and resets.
    void choose(int index);
    void stepOnce();

private:
    void redraw(const QString& lastAction);

    RaceModel model_;
    QComboBox* order_ = nullptr;
    QPushButton* step_ = nullptr;
    QTableWidget* timeline_ = nullptr;
    QLabel* status_ = nullptr;
};

} // namespace hwl::ui
