#pragma once
// Ready-made experiments for the Presets menu, each with a short explanation
// (HTML: <p>, <b>) shown beside the charts: what to run, what to look at and
// why it happens. Every preset's config passes validate() and uses canonical
// model / dataset texts. Presets that would use Fashion-MNIST fall back to a
// synthetic teacher task when it is not installed (fashionMnistAvailable()),
// and say so. GUI thread only (plain data; no widgets).
#include "config/experimentconfig.h"

#include <QList>
#include <QString>

namespace hwl::ui {

struct Preset {
    QString name;
    QString explanation;
    hwl::ExperimentConfig config;
};

/// The presets, in menu order. Built on each call (checks Fashion-MNIST).
QList<Preset> presets();

} // namespace hwl::ui
