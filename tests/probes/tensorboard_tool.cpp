// Drives precis's TensorBoard writer for the oracle test against torch's SummaryWriter and
// transformers' TensorBoardCallback.
//
//   tensorboard_tool write SCRIPT.json
//       SCRIPT: {"log_dir": DIR, "events": [{"scalar": TAG, "value": V, "step": N},
//                {"text": TAG, "value": STR, "step": N}, {"log": {log_history entry}, "step": N}]}
//       writes one event file and prints its path
//   tensorboard_tool logging_dir OUTPUT_DIR UNIX_SECONDS
//       prints default_logging_dir(OUTPUT_DIR) at that time
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "precis/train/tensorboard_writer.h"

int main(int argc, char** argv) {
  using precis::train::TensorBoardWriter;
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "write" && argc == 3) {
      std::ifstream in(argv[2]);
      const nlohmann::json script = nlohmann::json::parse(in);
      TensorBoardWriter writer(script.at("log_dir").get<std::string>());
      for (const auto& e : script.at("events")) {
        const int64_t step = e.at("step").get<int64_t>();
        if (e.contains("scalar")) {
          writer.add_scalar(e["scalar"].get<std::string>(), e.at("value").get<double>(), step);
        } else if (e.contains("text")) {
          writer.add_text(e["text"].get<std::string>(), e.at("value").get<std::string>(), step);
        } else {
          writer.log(e.at("log"), step);
        }
      }
      writer.flush();
      std::printf("%s\n", writer.path().c_str());
      return 0;
    }
    if (mode == "logging_dir" && argc == 4) {
      const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(std::stoll(argv[3])));
      std::printf("%s\n", precis::train::default_logging_dir(argv[2], t).c_str());
      return 0;
    }
    std::fprintf(stderr, "usage: tensorboard_tool write SCRIPT.json | logging_dir OUTPUT_DIR UNIX_SECONDS\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensorboard_tool: %s\n", e.what());
    return 1;
  }
}
