// CRC-32C against the published vectors, TFRecord framing, and the log-entry to tag mapping of
// the TensorBoard writer (the oracle test compares whole event files with torch's SummaryWriter).
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "precis/core/crc32c.h"
#include "precis/train/tensorboard_event.h"
#include "precis/train/tensorboard_writer.h"
#include "test_support.h"

namespace {

using precis::crc32c;
using precis::masked_crc32c;

uint32_t unmask(uint32_t masked) {
  const uint32_t rot = masked - 0xA282EAD8u;
  return (rot >> 17) | (rot << 15);
}

uint32_t le32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | uint8_t(s[at + size_t(i)]);
  return v;
}

TEST(Crc32c, KnownVectors) {
  // The check value of the CRC-32C catalogue entry, and RFC 3720 appendix B.4's vectors.
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(char(i));
    descending.push_back(char(31 - i));
  }
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending), 0x113FDB5Cu);
  EXPECT_EQ(crc32c(""), 0u);
}

TEST(Crc32c, MaskIsTheRotationTensorFlowUndoes) {
  for (const char* s : {"", "a", "123456789", "brain.Event:2"}) EXPECT_EQ(unmask(masked_crc32c(s)), crc32c(s)) << s;
  EXPECT_NE(masked_crc32c("123456789"), crc32c("123456789"));
}

TEST(TensorBoardRecord, LengthCrcDataCrc) {
  const std::string data = "some event bytes";
  const std::string record = precis::train::tensorboard::tfrecord(data);
  ASSERT_EQ(record.size(), 8 + 4 + data.size() + 4);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = length << 8 | uint8_t(record[size_t(i)]);
  EXPECT_EQ(length, data.size());
  EXPECT_EQ(le32(record, 8), masked_crc32c(record.substr(0, 8)));
  EXPECT_EQ(record.substr(12, data.size()), data);
  EXPECT_EQ(le32(record, 12 + data.size()), masked_crc32c(data));
}

TEST(TensorBoardLogs, TagsAsRewriteLogs) {
  using precis::train::tensorboard_tag;
  EXPECT_EQ(tensorboard_tag("loss"), "train/loss");
  EXPECT_EQ(tensorboard_tag("learning_rate"), "train/learning_rate");
  EXPECT_EQ(tensorboard_tag("eval_rouge1"), "eval/rouge1");
  EXPECT_EQ(tensorboard_tag("test_loss"), "test/loss");
  EXPECT_EQ(tensorboard_tag("train_runtime"), "train/train_runtime");
  EXPECT_EQ(tensorboard_tag("evaluation"), "train/evaluation");  // only the "eval_" prefix counts
}

TEST(TensorBoardLogs, NumbersOnlyAndNoStep) {
  const auto scalars = precis::train::tensorboard_scalars(
      nlohmann::json{{"loss", 2.5}, {"step", 7}, {"note", "text"}, {"flag", true}, {"eval_loss", 1}});
  ASSERT_EQ(scalars.size(), 3u);
  EXPECT_EQ(scalars[0], std::make_pair(std::string("eval/loss"), 1.0));
  EXPECT_EQ(scalars[1], std::make_pair(std::string("train/flag"), 1.0));
  EXPECT_EQ(scalars[2], std::make_pair(std::string("train/loss"), 2.5));
  EXPECT_CONTAINS(precis::testing::error_of([] { precis::train::tensorboard_scalars(nlohmann::json::array()); }),
                  "expected a JSON object");
}

TEST(TensorBoardWriter, FileStartsWithFileVersionRecord) {
  precis::testing::TempDir dir;
  precis::train::TensorBoardWriter writer(dir / "runs" / "x");
  writer.add_scalar("train/loss", 1.5, 3);
  writer.flush();
  EXPECT_EQ(writer.path().parent_path(), dir / "runs" / "x");
  EXPECT_EQ(writer.path().filename().string().rfind("events.out.tfevents.", 0), 0u);
  const std::string bytes = precis::testing::read_all(writer.path());
  ASSERT_GT(bytes.size(), 12u);
  EXPECT_NE(bytes.find("brain.Event:2"), std::string::npos);
  EXPECT_NE(bytes.find("train/loss"), std::string::npos);
  EXPECT_LT(bytes.find("brain.Event:2"), bytes.find("train/loss"));
}

TEST(TensorBoardWriter, UnwritableDirectoryIsAnError) {
  precis::testing::TempDir dir;
  precis::testing::write_all(dir / "file", "x");
  EXPECT_CONTAINS(precis::testing::error_of([&] { precis::train::TensorBoardWriter w(dir / "file" / "runs"); }),
                  "cannot create the TensorBoard log directory");
}

}  // namespace
