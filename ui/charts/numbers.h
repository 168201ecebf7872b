#pragma once
// How the window writes numbers: with the locale's digit grouping
// ("1,615,162" in English), everywhere (tables, status bar, event log,
// verdicts, hover texts), so that no two places disagree. Axis tick labels
// have their own short forms (chartaxes.h).
#include <QLocale>
#include <QString>

#include <cstdint>

namespace hwl::ui {

/// A whole number with the locale's group separators: "4,223,805".
inline QString formatCount(std::int64_t n) {
    return QLocale().toString(qlonglong(n));
}
inline QString formatCount(std::uint64_t n) {
    return QLocale().toString(qulonglong(n));
}
inline QString formatCount(int n) {
    return QLocale().toString(n);
}
/// A real number with `decimals` digits after the point, grouped:
/// "1,475,729" (0 decimals), "0.4312" (4).
inline QString formatDecimal(double x, int decimals) {
    return QLocale().toString(x, 'f', decimals);
}

} // namespace hwl::ui
