#include "io/targetrace.h"

#include <algorithm>

namespace hwl {

namespace {

RacePlace placeOf(const RaceEntrant& e, std::size_t index) {
    RacePlace p;
    p.label = e.label;
    p.entrant = index;
    p.runs = e.runs.size();
    std::vector<double> seconds, samples, rate;
    for (const RunSummary& s : e.runs) {
        if (!s.target.reached || !(s.target.trainSeconds > 0))
            continue;
        seconds.push_back(s.target.trainSeconds);
        samples.push_back(double(s.target.samples));
        rate.push_back(s.samplesPerSecond);
    }
    p.seconds = spreadOf(seconds);
    p.samples = spreadOf(samples);
    p.rate = spreadOf(rate);
    return p;
}

/// Whether `later` (whose median is not below the first's) cannot be told
/// from `first`: its median within the first's range when the first was
/// repeated, else within kAboutEqual of it.
bool aboutAsSoon(const RacePlace& first, const RacePlace& later) {
    if (first.seconds.n > 1)
        return later.seconds.median <= first.seconds.hi;
    return later.seconds.median <= kAboutEqual * first.seconds.median;
}

} // namespace

std::vector<RacePlace> raceToTarget(const std::vector<RaceEntrant>& entrants) {
    std::vector<RacePlace> places;
    for (std::size_t i = 0; i < entrants.size(); ++i)
        places.push_back(placeOf(entrants[i], i));
    std::stable_sort(places.begin(), places.end(), [](const RacePlace& a, const RacePlace& b) {
        if (a.reached() != b.reached())
            return a.reached();
        return a.reached() && a.seconds.median < b.seconds.median;
    });
    for (std::size_t i = 1; i < places.size() && places[i].reached(); ++i)
        places[i].aboutFirst = aboutAsSoon(places.front(), places[i]);
    return places; // (those about as soon as the first come right after it)
}

} // namespace hwl
