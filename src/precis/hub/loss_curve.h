// The loss-curve picture of a model card: training loss per logged step as a line, validation
// loss as points, on axes with ticks and labels. A self-contained SVG document (no scripts,
// fonts or images from elsewhere), so the Hub renders it from the repository as it is.
// The same points give the same bytes: coordinates are printed with fixed precision. Screen
// readers get the title and loss_curve_description as the picture's name and description.
#pragma once

#include <string>
#include <vector>

namespace precis::hub {

struct CurvePoint {
  double step = 0;
  double loss = 0;
};

// Non-finite points are left out. Either series may be empty; with no finite point at all the
// picture holds the axes and a "no losses logged" note.
std::string loss_curve_svg(const std::vector<CurvePoint>& training, const std::vector<CurvePoint>& validation);

// The curve in words, its text alternative (the SVG's <desc>, the card's image text): per
// series, how many losses, the first, the last and the lowest with their steps. One line
// with no Markdown brackets, so it can stand in ![...](loss_curve.svg).
std::string loss_curve_description(const std::vector<CurvePoint>& training,
                                   const std::vector<CurvePoint>& validation);

// Tick positions for an axis covering [lo, hi]: multiples of a 1/2/5 x 10^k step, about
// `target` of them, the first <= lo and the last >= hi. Exposed for tests.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

}  // namespace precis::hub
