#pragma once
// How the window writes numbers: with the locale's digit grouping
// ("1,615,162" in English), everywhere (tables, status bar, event log,
// verdicts, hover texts), so that no two places disagree. Axis tick labels
// have their own short forms (chartaxes.h).
#include <QLocale>
#include <QString>

#include <algorithm>
#include <cmath>
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

/// A measured value with `digits` significant digits, grouped, in plain
/// notation, without trailing zeros: "0.43121", "1,475,729", "0.42".
inline QString formatSignificant(double x, int digits = 5) {
    if (x == 0 || !std::isfinite(x))
        return QLocale().toString(x);
    const int magnitude = int(std::floor(std::log10(std::abs(x))));
    QString s = formatDecimal(x, std::clamp(digits - 1 - magnitude, 0, 12));
    const QString point = QLocale().decimalPoint();
    if (s.contains(point)) { // "0.42", not "0.42000"
        while (s.endsWith(QLatin1Char('0')))
            s.chop(1);
        if (s.endsWith(point))
            s.chop(point.size());
    }
    return s;
}

/// A number that may be of any size, say a diverged loss: plain and
/// grouped below a million ("1,234.5678" with `decimals`), in scientific
/// notation from there ("2.42E+35"), where plain digits would run to forty.
inline QString formatAnySize(double x, int decimals) {
    if (std::isfinite(x) && std::abs(x) >= 1e6)
        return QLocale().toString(x, 'e', 2);
    return formatDecimal(x, decimals);
}

/// A duration in the unit that keeps it short: "0.84 ms", "312 ms", "2.41 s".
inline QString formatDuration(double seconds) {
    if (seconds >= 1)
        return formatDecimal(seconds, 2) + QStringLiteral(" s");
    const double ms = seconds * 1e3;
    return formatDecimal(ms, ms >= 100 ? 0 : 2) + QStringLiteral(" ms");
}

} // namespace hwl::ui
