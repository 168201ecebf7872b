#pragma once
// The verdict of a race to a target: a comparison preset that "compares":
// "time to target" (every run trains until it reaches the same test
// accuracy or loss). It ranks the runs by their training seconds to the
// target, calls runs within 10% of the first about as soon (the spread
// between repeated runs), and says which factor decided each place: the
// time is the samples a run needed (statistical efficiency) over the rate it
// processed them at (hardware efficiency), so each later run's ratio to the
// first is the product of its samples ratio and its speed ratio, and the
// larger one decided. A run that missed the target is named with its best
// figures, never ranked. GUI thread only.
#include "teaching/comparisonverdict.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace hwl::ui {

/// The race's sentence, quoting the runs' own figures.
QString targetRaceSentence(const ComparisonRecord& record);

/// The race's columns of the table: seconds and samples to the target, the
/// samples and speed as multiples of the first's, and what decided the
/// place ("first", "about as soon", "samples needed", "its speed").
QStringList raceHeader();
/// Those cells for each of the record's rows, in its order ("not reached"
/// and dashes for a run that missed).
QList<QStringList> raceCells(const ComparisonRecord& record);

} // namespace hwl::ui
