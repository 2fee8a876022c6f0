#include "precis/train/test_stop.h"

#include <csignal>
#include <cstdlib>
#include <string>

namespace precis::train {

void stop_here_for_test(const char* point, int64_t a, int64_t b) {
  static const char* const wanted = std::getenv("PRECIS_TEST_STOP_AT");
  static bool stopped = false;
  if (wanted == nullptr || stopped) return;
  std::string here = std::string(point) + ":" + std::to_string(a);
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on ":" + a temporary string.
  if (b >= 0) here.append(":").append(std::to_string(b));
  if (here != wanted) return;
  stopped = true;
  std::raise(SIGSTOP);
}

}  // namespace precis::train
