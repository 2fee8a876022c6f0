// precis.pipeline("summarization")'s engine: a checkpoint (of the family config.json's
// model_type names), its tokenizer and generation config; texts in, for each the generated
// rows' ids and text out, as transformers' SummarizationPipeline makes them: config.prefix
// before every text, inputs padded in batches of batch_size, truncated only when asked
// (truncation=True: model_max_length), the checkpoint's generation config updated by
// config.json's task_specific_params for the task (generate/pipeline_task.h), then by the
// call's generate kwargs, rows decoded with skip_special_tokens=True.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <memory>
#include <span>
#include <variant>

#include "bindings.h"
#include "checkpoint_tokenizer.h"
#include "precis/generate/generate.h"
#include "precis/generate/pipeline_task.h"
#include "precis/model/families.h"

namespace precis::python {

namespace {

using Ids = std::vector<int32_t>;

class SummarizationModel {
 public:
  SummarizationModel(const std::string& dir, const std::string& task)
      : tokenizer_(dir),
        task_(generate::pipeline_task_settings(dir, task)),
        model_(std::make_unique<AnyModel>(load_any_model(dir))) {
    const SpecialTokens tokens =
        std::visit([](const auto& model) { return special_tokens(model.config); }, *model_);
    config_ = generate::GenerationConfig::from_model_directory(dir, tokens);
    config_.update(task_.generation, (std::filesystem::path(dir) / "config.json").string() +
                                         ": task_specific_params." + task);
  }

  // For each text, its num_return_sequences rows: (ids as generate() returns them, text).
  std::vector<std::vector<std::pair<Ids, std::string>>> generate(
      const std::vector<std::string>& texts, const std::string& generate_kwargs, int64_t batch_size,
      bool truncation, bool clean_up_tokenization_spaces, bool as_list) const {
    check(batch_size > 0, "batch_size must be positive, found " + std::to_string(batch_size));
    generate::GenerationConfig config = config_;
    config.update(nlohmann::json::parse(generate_kwargs), "pipeline");
    std::vector<std::string> prefixed;
    for (const std::string& text : texts) prefixed.push_back(task_.prefix + text);
    const std::vector<Ids> inputs =
        tokenizer_.encode(prefixed, true, tokenizer_.truncation_length(truncation, std::nullopt));
    std::vector<std::vector<std::pair<Ids, std::string>>> out;
    // The pipeline generates batch after batch from torch's global generator: one seed per call.
    TorchCpuGenerator generator(config.seed);
    // HF's pipeline iterates a list with a DataLoader, whose iterator first draws its base seed
    // from that generator (torch.empty((), dtype=torch.int64).random_(): one random64); a
    // string goes straight to generate().
    if (as_list) generator.random64();
    generate::GenerateOptions options;
    options.generator = &generator;
    for (size_t begin = 0; begin < inputs.size(); begin += size_t(batch_size)) {
      const size_t end = std::min(inputs.size(), begin + size_t(batch_size));
      std::span<const Ids> batch(inputs.data() + begin, end - begin);
      const generate::Generated generated = std::visit(
          [&](const auto& model) { return generate::generate(model, batch, config, options); },
          *model_);
      const int64_t per_input = generated.rows / int64_t(batch.size());
      for (int64_t r = 0; r < generated.rows; ++r) {
        if (r % per_input == 0) out.emplace_back();
        const auto row = generated.row(r);
        Ids ids(row.begin(), row.end());
        // T5's tokenizers always clean up (what transformers 4.44's T5 tokenizers default to).
        std::string text = tokenizer_.decode(ids, true,
                                             tokenizer_.always_cleans_up()
                                                 ? std::nullopt
                                                 : std::optional(clean_up_tokenization_spaces));
        out.back().emplace_back(std::move(ids), std::move(text));
      }
    }
    return out;
  }

  const CheckpointTokenizer& tokenizer() const { return tokenizer_; }

 private:
  CheckpointTokenizer tokenizer_;
  generate::PipelineTaskSettings task_;
  std::unique_ptr<AnyModel> model_;  // held still: the batches' constant weights point into it
  generate::GenerationConfig config_;
};

}  // namespace

void bind_summarization_model(nb::module_& m) {
  nb::class_<SummarizationModel>(m, "SummarizationModel")
      .def(nb::init<const std::string&, const std::string&>(), nb::arg("directory"), nb::arg("task"),
           nb::call_guard<nb::gil_scoped_release>())
      .def(
          "generate",
          [](const SummarizationModel& model, const std::vector<std::string>& texts, nb::handle generate_kwargs,
             int64_t batch_size, bool truncation, bool clean_up_tokenization_spaces, bool as_list) {
            const std::string kwargs = to_json(generate_kwargs).dump();
            nb::gil_scoped_release released;
            return model.generate(texts, kwargs, batch_size, truncation, clean_up_tokenization_spaces,
                                  as_list);
          },
          nb::arg("texts"), nb::arg("generate_kwargs"), nb::arg("batch_size"), nb::arg("truncation"),
          nb::arg("clean_up_tokenization_spaces"), nb::arg("as_list"));
}

}  // namespace precis::python
