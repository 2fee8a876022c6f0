// The family registry (model/families.h): which family a checkpoint or a config_name is, the
// refusal of a model_type no family has, and load_any_model's choice.
#include <gtest/gtest.h>

#include <functional>
#include <type_traits>
#include <variant>

#include "precis/core/error.h"
#include "precis/model/families.h"
#include "test_support.h"

namespace precis {
namespace {

using testing::TempDir;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Families, EveryListedFamilyIsAnAlternativeOfAnyModel) {
  static_assert(std::is_same_v<AnyModel, std::variant<BartModel, T5Model>>);
  EXPECT_EQ(known_model_types(), "\"bart\", \"t5\"");
}

TEST(Families, AnUnknownModelTypeIsRefusedWithTheKnownOnes) {
  TempDir dir;
  dir.write("config.json", R"({"model_type": "pegasus", "d_model": 16})");
  const std::string message = error_of([&] { checkpoint_model_type(dir.path()); });
  EXPECT_CONTAINS(message, (dir.path() / "config.json").string() +
                               ": model_type \"pegasus\" is not a family precis knows "
                               "(\"bart\", \"t5\")");
  EXPECT_EQ(error_of([&] { load_any_model(dir.path()); }), message);
  EXPECT_EQ(error_of([&] { config_model_type((dir.path() / "config.json").string()); }), message);
}

TEST(Families, AConfigWithoutModelTypeIsRefused) {
  TempDir dir;
  dir.write("config.json", R"({"d_model": 16})");
  EXPECT_EQ(error_of([&] { checkpoint_model_type(dir.path()); }),
            (dir.path() / "config.json").string() +
                ": no \"model_type\" string; expected one of \"bart\", \"t5\"");
  EXPECT_EQ(error_of([&] { checkpoint_model_type(dir.path() / "absent"); }),
            (dir.path() / "absent").string() + ": not a model directory");
}

TEST(Families, ConfigNameIsAPresetOrAConfigFile) {
  EXPECT_EQ(config_model_type("t5-small"), "t5");
  EXPECT_EQ(config_model_type("flan-t5-small"), "t5");
  EXPECT_EQ(config_model_type("bart-base"), "bart");
  TempDir dir;
  dir.write("config.json", R"({"model_type": "t5"})");
  EXPECT_EQ(config_model_type(dir.path().string()), "t5");
  EXPECT_EQ(config_model_type((dir.path() / "config.json").string()), "t5");
  const std::string message = error_of([] { config_model_type("t5-huge"); });
  EXPECT_CONTAINS(message, "config_name \"t5-huge\" is neither a preset (bart-tiny");
  EXPECT_CONTAINS(message, "flan-t5-base");
}

TEST(Families, WithModelFamilyCallsTheFamilysModel) {
  EXPECT_TRUE(with_model_family("t5", "test", [](auto family) {
    return std::is_same_v<typename decltype(family)::type, T5Model>;
  }));
  EXPECT_TRUE(with_model_family("bart", "test", [](auto family) {
    return std::is_same_v<typename decltype(family)::type, BartModel>;
  }));
  EXPECT_EQ(error_of([] { with_model_family("BART", "here", [](auto) {}); }),
            "here: model_type \"BART\" is not a family precis knows (\"bart\", \"t5\")");
}

TEST(Families, LoadAnyModelLoadsTheFamilyConfigJsonNames) {
  TempDir dir;
  BartConfig bart = bart_config_from("bart-tiny");
  bart.vocab_size = 64;
  BartModel::allocate(bart).save(dir / "bart");
  T5Config t5 = t5_config_from("t5-tiny");
  t5.vocab_size = 64;
  T5Model::allocate(t5).save(dir / "t5");
  const AnyModel a = load_any_model(dir / "bart");
  ASSERT_TRUE(std::holds_alternative<BartModel>(a));
  EXPECT_EQ(std::get<BartModel>(a).config.vocab_size, 64);
  const AnyModel b = load_any_model(dir / "t5");
  ASSERT_TRUE(std::holds_alternative<T5Model>(b));
  EXPECT_EQ(std::get<T5Model>(b).config.d_model, t5.d_model);
}

}  // namespace
}  // namespace precis
