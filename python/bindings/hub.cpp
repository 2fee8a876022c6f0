// precis.card and precis.publish: the library's model card writer and publisher
// (hub/model_card.h, hub/publish.h) on their own options structs; publish's git output goes to
// a Python callable line by line, and its result comes back as PublishResult.
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "precis/hub/model_card.h"
#include "precis/hub/publish.h"

namespace precis::python {

void bind_hub(nb::module_& m) {
  using hub::ModelCardOptions;
  nb::class_<ModelCardOptions>(m, "ModelCardOptions")
      .def(nb::init<>())
      .def_rw("language", &ModelCardOptions::language)
      .def_rw("license", &ModelCardOptions::license, nb::arg("value").none())
      .def_rw("tags", &ModelCardOptions::tags)
      .def_rw("datasets", &ModelCardOptions::datasets)
      .def_rw("base_model", &ModelCardOptions::base_model, nb::arg("value").none())
      .def_rw("model_name", &ModelCardOptions::model_name, nb::arg("value").none())
      .def_rw("widget_text", &ModelCardOptions::widget_text, nb::arg("value").none());
  m.def(
      "write_model_card",
      [](const std::string& dir, const ModelCardOptions& options) {
        nb::gil_scoped_release released;
        return hub::write_model_card(dir, options).string();
      },
      nb::arg("directory"), nb::arg("options"));

  nb::class_<hub::PublishResult>(m, "PublishResult")
      .def_ro("remote", &hub::PublishResult::remote)
      .def_ro("branch", &hub::PublishResult::branch)
      .def_ro("commit", &hub::PublishResult::commit)
      .def_ro("pushed", &hub::PublishResult::pushed)
      .def_ro("files", &hub::PublishResult::files)
      .def_ro("lfs_files", &hub::PublishResult::lfs_files);
  m.def(
      "publish",
      [](const std::string& model_dir, const std::string& repo, const std::string& branch,
         const std::string& commit_message, const std::string& token_env, bool create_pr,
         nb::object progress) {
        hub::PublishOptions options;
        options.model_dir = model_dir;
        options.repo = repo;
        options.branch = branch;
        options.commit_message = commit_message;
        options.token_env = token_env;
        options.create_pr = create_pr;
        if (!progress.is_none())
          options.progress = [&progress](std::string_view line) {
            nb::gil_scoped_acquire held;
            progress(std::string(line));
          };
        nb::gil_scoped_release released;
        return hub::publish(options);
      },
      nb::arg("model_dir"), nb::arg("repo"), nb::arg("branch"), nb::arg("commit_message"),
      nb::arg("token_env"), nb::arg("create_pr"), nb::arg("progress").none());
}

}  // namespace precis::python
