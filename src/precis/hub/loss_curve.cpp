#include "precis/hub/loss_curve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace precis::hub {
namespace {

// Canvas and plot area, in SVG user units.
constexpr double kWidth = 640, kHeight = 400;
constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 56;
constexpr const char* kTrainColour = "#1f77b4";
constexpr const char* kValidationColour = "#ff7f0e";

std::string fixed(double v, int decimals = 2) {
  if (v == 0) v = 0;  // no "-0.00"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.rfind("-0", 0) == 0 && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

// Decimals a tick label needs so that ticks `step` apart read differently.
int label_decimals(double step) {
  int d = 0;
  while (d < 8 && std::fabs(step * std::pow(10.0, d) - std::round(step * std::pow(10.0, d))) > 1e-6) ++d;
  return d;
}

struct Axis {
  std::vector<double> ticks;
  double lo = 0, hi = 1;
};

Axis make_axis(double lo, double hi) {
  Axis a;
  a.ticks = nice_ticks(lo, hi);
  a.lo = a.ticks.front();
  a.hi = a.ticks.back();
  return a;
}

std::vector<CurvePoint> finite(const std::vector<CurvePoint>& points) {
  std::vector<CurvePoint> out;
  for (const CurvePoint& p : points)
    if (std::isfinite(p.step) && std::isfinite(p.loss)) out.push_back(p);
  return out;
}

// A loss as the description reads it: 4 significant digits are what a reader compares.
std::string loss_words(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string step_words(double step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, step == std::floor(step) ? "%.0f" : "%g", step);
  return std::string("step ") + buf;
}

// "Training loss, 200 logged steps: from 10.52 at step 25 to 3.214 at step 5000; lowest ...".
std::string series_words(const std::string& name, const std::vector<CurvePoint>& points,
                         const char* unit) {
  if (points.empty()) return "";
  const CurvePoint& first = points.front();
  const CurvePoint& last = points.back();
  if (points.size() == 1) return name + ": " + loss_words(first.loss) + " at " + step_words(first.step) + ".";
  const CurvePoint& lowest = *std::min_element(
      points.begin(), points.end(), [](const CurvePoint& a, const CurvePoint& b) { return a.loss < b.loss; });
  return name + ", " + std::to_string(points.size()) + " " + unit + ": from " + loss_words(first.loss) + " at " +
         step_words(first.step) + " to " + loss_words(last.loss) + " at " + step_words(last.step) + "; lowest " +
         loss_words(lowest.loss) + " at " + step_words(lowest.step) + ".";
}

}  // namespace

std::string loss_curve_description(const std::vector<CurvePoint>& training_in,
                                   const std::vector<CurvePoint>& validation_in) {
  const std::string training = series_words("Training loss", finite(training_in), "logged steps");
  const std::string validation = series_words("Validation loss", finite(validation_in), "evaluations");
  if (training.empty() && validation.empty()) return "Training loss: no losses logged.";
  return training + (training.empty() || validation.empty() ? "" : " ") + validation;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    // One value: a unit-sized window around it (or a tenth of it, for large values).
    const double pad = std::max(0.5, std::fabs(hi) * 0.1);
    lo -= pad, hi += pad;
  }
  const double raw = (hi - lo) / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  const double first = std::floor(lo / step + 1e-9) * step;
  const double last = std::ceil(hi / step - 1e-9) * step;
  std::vector<double> ticks;
  const long n = std::lround((last - first) / step);
  for (long i = 0; i <= n; ++i) ticks.push_back(first + double(i) * step);
  if (ticks.size() < 2) ticks.push_back(first + step);
  return ticks;
}

std::string loss_curve_svg(const std::vector<CurvePoint>& training_in, const std::vector<CurvePoint>& validation_in) {
  const std::vector<CurvePoint> training = finite(training_in), validation = finite(validation_in);
  double min_step = 0, max_step = 1, min_loss = 0, max_loss = 1;
  bool any = false;
  for (const auto* series : {&training, &validation})
    for (const CurvePoint& p : *series) {
      if (!any) min_step = max_step = p.step, min_loss = max_loss = p.loss, any = true;
      min_step = std::min(min_step, p.step), max_step = std::max(max_step, p.step);
      min_loss = std::min(min_loss, p.loss), max_loss = std::max(max_loss, p.loss);
    }
  // Steps start at 0 so the picture shows how far into training the first log came.
  const Axis x = make_axis(std::min(0.0, min_step), max_step);
  const Axis y = make_axis(min_loss, max_loss);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double step) { return kLeft + (step - x.lo) / (x.hi - x.lo) * plot_w; };
  auto py = [&](double loss) { return kTop + (y.hi - loss) / (y.hi - y.lo) * plot_h; };

  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fixed(kWidth, 0) + "\" height=\"" + fixed(kHeight, 0) +
       "\" viewBox=\"0 0 " + fixed(kWidth, 0) + " " + fixed(kHeight, 0) +
       "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-labelledby=\"loss-title\" "
       "aria-describedby=\"loss-description\">\n";
  s += "  <title id=\"loss-title\">Training loss</title>\n";
  s += "  <desc id=\"loss-description\">" + loss_curve_description(training, validation) + "</desc>\n";
  s += "  <rect x=\"0\" y=\"0\" width=\"" + fixed(kWidth, 0) + "\" height=\"" + fixed(kHeight, 0) +
       "\" fill=\"#ffffff\"/>\n";
  s += "  <text x=\"" + fixed(kWidth / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">Training loss</text>\n";

  // Grid lines and tick labels.
  s += "  <g stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (double t : x.ticks)
    s += "    <line x1=\"" + fixed(px(t)) + "\" y1=\"" + fixed(kTop) + "\" x2=\"" + fixed(px(t)) + "\" y2=\"" +
         fixed(kTop + plot_h) + "\"/>\n";
  for (double t : y.ticks)
    s += "    <line x1=\"" + fixed(kLeft) + "\" y1=\"" + fixed(py(t)) + "\" x2=\"" + fixed(kLeft + plot_w) + "\" y2=\"" +
         fixed(py(t)) + "\"/>\n";
  s += "  </g>\n";
  s += "  <g stroke=\"#333333\" stroke-width=\"1\">\n";
  s += "    <line x1=\"" + fixed(kLeft) + "\" y1=\"" + fixed(kTop + plot_h) + "\" x2=\"" + fixed(kLeft + plot_w) +
       "\" y2=\"" + fixed(kTop + plot_h) + "\"/>\n";
  s += "    <line x1=\"" + fixed(kLeft) + "\" y1=\"" + fixed(kTop) + "\" x2=\"" + fixed(kLeft) + "\" y2=\"" +
       fixed(kTop + plot_h) + "\"/>\n";
  for (double t : x.ticks)
    s += "    <line x1=\"" + fixed(px(t)) + "\" y1=\"" + fixed(kTop + plot_h) + "\" x2=\"" + fixed(px(t)) + "\" y2=\"" +
         fixed(kTop + plot_h + 5) + "\"/>\n";
  for (double t : y.ticks)
    s += "    <line x1=\"" + fixed(kLeft - 5) + "\" y1=\"" + fixed(py(t)) + "\" x2=\"" + fixed(kLeft) + "\" y2=\"" +
         fixed(py(t)) + "\"/>\n";
  s += "  </g>\n";
  const int x_decimals = label_decimals(x.ticks[1] - x.ticks[0]);
  const int y_decimals = label_decimals(y.ticks[1] - y.ticks[0]);
  s += "  <g fill=\"#333333\">\n";
  for (double t : x.ticks)
    s += "    <text x=\"" + fixed(px(t)) + "\" y=\"" + fixed(kTop + plot_h + 19) + "\" text-anchor=\"middle\">" +
         fixed(t, x_decimals) + "</text>\n";
  for (double t : y.ticks)
    s += "    <text x=\"" + fixed(kLeft - 8) + "\" y=\"" + fixed(py(t) + 4) + "\" text-anchor=\"end\">" +
         fixed(t, y_decimals) + "</text>\n";
  s += "    <text x=\"" + fixed(kLeft + plot_w / 2) + "\" y=\"" + fixed(kHeight - 12) +
       "\" text-anchor=\"middle\">step</text>\n";
  s += "    <text x=\"18\" y=\"" + fixed(kTop + plot_h / 2) + "\" text-anchor=\"middle\" transform=\"rotate(-90 18 " +
       fixed(kTop + plot_h / 2) + ")\">loss</text>\n";
  s += "  </g>\n";

  if (!any)
    s += "  <text x=\"" + fixed(kLeft + plot_w / 2) + "\" y=\"" + fixed(kTop + plot_h / 2) +
         "\" text-anchor=\"middle\" fill=\"#777777\">no losses logged</text>\n";
  if (!training.empty()) {
    std::string points;
    for (const CurvePoint& p : training) {
      if (!points.empty()) points += ' ';
      points += fixed(px(p.step)) + "," + fixed(py(p.loss));
    }
    s += "  <polyline fill=\"none\" stroke=\"" + std::string(kTrainColour) + "\" stroke-width=\"2\" points=\"" + points +
         "\"/>\n";
  }
  if (!validation.empty()) {
    s += "  <g fill=\"" + std::string(kValidationColour) + "\">\n";
    for (const CurvePoint& p : validation)
      s += "    <circle cx=\"" + fixed(px(p.step)) + "\" cy=\"" + fixed(py(p.loss)) + "\" r=\"4\"/>\n";
    s += "  </g>\n";
  }

  // Legend, top right inside the plot.
  double legend_y = kTop + 14;
  const double legend_x = kLeft + plot_w - 130;
  if (!training.empty()) {
    s += "  <line x1=\"" + fixed(legend_x) + "\" y1=\"" + fixed(legend_y) + "\" x2=\"" + fixed(legend_x + 20) +
         "\" y2=\"" + fixed(legend_y) + "\" stroke=\"" + kTrainColour + "\" stroke-width=\"2\"/>\n";
    s += "  <text x=\"" + fixed(legend_x + 26) + "\" y=\"" + fixed(legend_y + 4) + "\">training loss</text>\n";
    legend_y += 18;
  }
  if (!validation.empty()) {
    s += "  <circle cx=\"" + fixed(legend_x + 10) + "\" cy=\"" + fixed(legend_y) + "\" r=\"4\" fill=\"" +
         kValidationColour + "\"/>\n";
    s += "  <text x=\"" + fixed(legend_x + 26) + "\" y=\"" + fixed(legend_y + 4) + "\">validation loss</text>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace precis::hub
