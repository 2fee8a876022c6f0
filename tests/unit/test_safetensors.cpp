// safetensors reader and writer: round trips for every dtype, the reference layout, dtype
// conversion at read time, and one test per malformation (each must be a precis::Error whose
// message names the file and the problem, never a crash).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "precis/core/arena.h"
#include "precis/io/safetensors.h"

#include "test_support.h"

using namespace precis;
namespace fs = std::filesystem;
using namespace precis::testing;

namespace {

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = char(uint8_t(n >> (8 * i)));
  return s;
}

// A file with the given header text (no padding added) and data bytes.
fs::path raw_file(const TempDir& dir, const std::string& name, const std::string& header,
                  const std::string& data) {
  fs::path p = dir / name;
  write_all(p, le64(header.size()) + header + data);
  return p;
}

using precis::testing::error_of;

// Opening `path` fails with a one-line message naming the file and containing `problem`.
void expect_open_error(const fs::path& path, const std::string& problem) {
  std::string message = error_of([&] { SafetensorsReader::open(path); });
  EXPECT_CONTAINS(message, path.filename().string());
  EXPECT_CONTAINS(message, problem);
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace

TEST(Safetensors, RoundTripsEveryDtype) {
  TempDir dir;
  Arena arena(1 << 16);
  Tensor f32 = arena.alloc({2, 3}, DType::F32);
  Tensor bf16 = arena.alloc({3}, DType::BF16);
  Tensor f16 = arena.alloc({1, 2, 2}, DType::F16);
  Tensor i32 = arena.alloc({4}, DType::I32);
  Tensor i64 = arena.alloc({2, 1, 1, 2}, DType::I64);
  Tensor scalar = arena.alloc(Shape{}, DType::F32);
  Tensor empty = arena.alloc({0, 5}, DType::F32);
  for (int i = 0; i < 6; ++i) f32.f32()[i] = 0.25f * float(i) - 1.0f;
  for (int i = 0; i < 3; ++i) bf16.data<uint16_t>()[i] = float_to_bf16(1.5f * float(i) + 0.1f);
  for (int i = 0; i < 4; ++i) f16.data<uint16_t>()[i] = float_to_f16(-0.3f * float(i));
  for (int i = 0; i < 4; ++i) i32.i32()[i] = (i - 2) * 1000003;
  for (int i = 0; i < 4; ++i) i64.data<int64_t>()[i] = (int64_t(1) << 40) * (i - 1);
  scalar.f32()[0] = 3.5f;
  std::vector<NamedTensor> tensors = {{"f32", f32},    {"bf16", bf16}, {"f16", f16},
                                      {"i32", i32},    {"i64", i64},   {"scalar", scalar},
                                      {"empty", empty}};
  write_safetensors(dir / "all.safetensors", tensors, {{"format", "pt"}, {"step", "7"}});

  SafetensorsReader r = SafetensorsReader::open(dir / "all.safetensors");
  EXPECT_EQ(r.entries().size(), tensors.size());
  EXPECT_EQ(r.metadata(), (std::map<std::string, std::string>{{"format", "pt"}, {"step", "7"}}));
  for (const NamedTensor& t : tensors) {
    SCOPED_TRACE(t.name);
    ASSERT_TRUE(r.contains(t.name));
    EXPECT_EQ(r.shape(t.name), t.tensor.shape);
    EXPECT_EQ(r.dtype(t.name), dtype_name(t.tensor.dtype));
    Tensor back = arena.zeros(t.tensor.shape, t.tensor.dtype);
    r.read(t.name, back);
    EXPECT_EQ(std::memcmp(back.ptr, t.tensor.ptr, t.tensor.nbytes()), 0);
  }
  // No temporary file is left beside the result.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(Safetensors, WritesTheReferenceLayout) {
  TempDir dir;
  Arena arena(4096);
  Tensor a = arena.zeros({3}, DType::F32);
  Tensor b = arena.zeros({3}, DType::F16);
  Tensor c = arena.zeros({3}, DType::BF16);
  Tensor d = arena.zeros({3}, DType::I64);
  Tensor e = arena.zeros({3}, DType::I32);
  Tensor z = arena.zeros({2}, DType::F32);
  write_safetensors(dir / "x.safetensors",
                    {{"z", z}, {"a", a}, {"b", b}, {"c", c}, {"d", d}, {"e", e}},
                    {{"format", "pt"}});
  // What safetensors 0.4.5 writes for the same tensors (sorted by alignment, then name).
  const std::string header = R"({"__metadata__":{"format":"pt"},)"
                             R"("d":{"dtype":"I64","shape":[3],"data_offsets":[0,24]},)"
                             R"("a":{"dtype":"F32","shape":[3],"data_offsets":[24,36]},)"
                             R"("z":{"dtype":"F32","shape":[2],"data_offsets":[36,44]},)"
                             R"("e":{"dtype":"I32","shape":[3],"data_offsets":[44,56]},)"
                             R"("c":{"dtype":"BF16","shape":[3],"data_offsets":[56,62]},)"
                             R"("b":{"dtype":"F16","shape":[3],"data_offsets":[62,68]}})";
  std::string padded = header + std::string((8 - header.size() % 8) % 8, ' ');
  std::string bytes = read_all(dir / "x.safetensors");
  ASSERT_GE(bytes.size(), 8 + padded.size());
  EXPECT_EQ(bytes.substr(0, 8), le64(padded.size()));
  EXPECT_EQ(bytes.substr(8, padded.size()), padded);
  EXPECT_EQ(bytes.size(), 8 + padded.size() + 68);

  // Without metadata there is no __metadata__ key; scalars have shape [].
  Tensor s = arena.zeros(Shape{}, DType::F32);
  write_safetensors(dir / "s.safetensors", {{"s", s}});
  std::string text = read_all(dir / "s.safetensors").substr(8);
  EXPECT_EQ(text.substr(0, text.find('}') + 2),
            R"({"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})");
}

TEST(Safetensors, ConvertsFloatsAndIntegersOnRead) {
  TempDir dir;
  Arena arena(1 << 16);
  const float values[] = {0.1f, -2.5f, 65504.0f, 1e-6f, 3.14159265f, -0.0f};
  Tensor f32 = arena.alloc({6}, DType::F32);
  std::memcpy(f32.ptr, values, sizeof values);
  Tensor i64 = arena.alloc({3}, DType::I64);
  i64.data<int64_t>()[0] = -5;
  i64.data<int64_t>()[1] = 2147483647;
  i64.data<int64_t>()[2] = -2147483648LL;
  Tensor big = arena.alloc({1}, DType::I64);
  big.data<int64_t>()[0] = int64_t(1) << 31;
  Tensor i32 = arena.alloc({2}, DType::I32);
  i32.i32()[0] = -7;
  i32.i32()[1] = 9;
  write_safetensors(dir / "c.safetensors", {{"f", f32}, {"i", i64}, {"big", big}, {"j", i32}});
  SafetensorsReader r = SafetensorsReader::open(dir / "c.safetensors");

  Tensor as_bf16 = arena.alloc({6}, DType::BF16);
  Tensor as_f16 = arena.alloc({6}, DType::F16);
  r.read("f", as_bf16);
  r.read("f", as_f16);
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(as_bf16.data<uint16_t>()[k], float_to_bf16(values[k]));
    EXPECT_EQ(as_f16.data<uint16_t>()[k], float_to_f16(values[k]));
  }
  // And back: a BF16/F16 file read as F32 is exact.
  write_safetensors(dir / "h.safetensors", {{"b", as_bf16}, {"h", as_f16}});
  SafetensorsReader h = SafetensorsReader::open(dir / "h.safetensors");
  Tensor back = arena.alloc({6}, DType::F32);
  h.read("b", back);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(back.f32()[k], bf16_to_float(float_to_bf16(values[k])));
  h.read("h", back);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(back.f32()[k], f16_to_float(float_to_f16(values[k])));

  Tensor narrow = arena.alloc({3}, DType::I32);
  r.read("i", narrow);
  EXPECT_EQ(narrow.i32()[0], -5);
  EXPECT_EQ(narrow.i32()[1], 2147483647);
  EXPECT_EQ(narrow.i32()[2], -2147483647 - 1);
  Tensor wide = arena.alloc({2}, DType::I64);
  r.read("j", wide);
  EXPECT_EQ(wide.data<int64_t>()[0], -7);
  EXPECT_EQ(wide.data<int64_t>()[1], 9);

  std::string m = error_of([&] { r.read("big", arena.alloc({1}, DType::I32)); });
  EXPECT_CONTAINS(m, "c.safetensors");
  EXPECT_CONTAINS(m, "\"big\"");
  EXPECT_CONTAINS(m, "does not fit in I32");
  m = error_of([&] { r.read("f", arena.alloc({6}, DType::I32)); });
  EXPECT_CONTAINS(m, "is F32 and cannot be read as I32");
  m = error_of([&] { r.read("j", arena.alloc({2}, DType::F32)); });
  EXPECT_CONTAINS(m, "is I32 and cannot be read as F32");
}

TEST(Safetensors, ReadsF64AndOtherIntegerDtypes) {
  TempDir dir;
  double d[3] = {0.1, -1e300, 2.0000001};
  std::string data(reinterpret_cast<const char*>(d), sizeof d);
  data += std::string("\x01\x00\xff", 3);  // BOOL x1, U8 0 and 255 (as U8[2] below)
  std::string header = R"({"d":{"dtype":"F64","shape":[3],"data_offsets":[0,24]},)"
                       R"("b":{"dtype":"BOOL","shape":[1],"data_offsets":[24,25]},)"
                       R"("u":{"dtype":"U8","shape":[2],"data_offsets":[25,27]}})";
  fs::path p = raw_file(dir, "f64.safetensors", header, data);
  SafetensorsReader r = SafetensorsReader::open(p);
  Arena arena(4096);
  Tensor f = arena.alloc({3}, DType::F32);
  r.read("d", f);
  EXPECT_EQ(f.f32()[0], float(0.1));
  EXPECT_TRUE(std::isinf(f.f32()[1]) && f.f32()[1] < 0);
  EXPECT_EQ(f.f32()[2], float(2.0000001));
  Tensor b = arena.alloc({1}, DType::I64);
  r.read("b", b);
  EXPECT_EQ(b.data<int64_t>()[0], 1);
  Tensor u = arena.alloc({2}, DType::I32);
  r.read("u", u);
  EXPECT_EQ(u.i32()[0], 0);
  EXPECT_EQ(u.i32()[1], 255);
}

TEST(Safetensors, AcceptsTrailingSpacesAndAnyEntryOrder) {
  TempDir dir;
  // Entries listed out of data order; header padded with spaces.
  std::string header = R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},)"
                       R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}       )";
  float v[2] = {1.0f, 2.0f};
  fs::path p = raw_file(dir, "ok.safetensors", header, std::string((const char*)v, 8));
  SafetensorsReader r = SafetensorsReader::open(p);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"a", "b"}));
  Arena arena(256);
  Tensor t = arena.alloc({1});
  r.read("b", t);
  EXPECT_EQ(t.f32()[0], 2.0f);
}

TEST(SafetensorsErrors, MissingAndTruncatedFiles) {
  TempDir dir;
  std::string m = error_of([&] { SafetensorsReader::open(dir / "absent.safetensors"); });
  EXPECT_CONTAINS(m, "absent.safetensors");
  EXPECT_CONTAINS(m, "No such file");

  write_all(dir / "short.safetensors", "abc");
  expect_open_error(dir / "short.safetensors", "truncated: 3 bytes");

  // A valid file cut short in its data section.
  Arena arena(1024);
  Tensor t = arena.zeros({4, 4});
  write_safetensors(dir / "cut.safetensors", {{"w", t}});
  fs::resize_file(dir / "cut.safetensors", fs::file_size(dir / "cut.safetensors") - 5);
  expect_open_error(dir / "cut.safetensors", "\"w\" has data_offsets [0, 64] out of range");

  // Cut inside the header.
  write_safetensors(dir / "cut2.safetensors", {{"w", t}});
  fs::resize_file(dir / "cut2.safetensors", 20);
  expect_open_error(dir / "cut2.safetensors", "runs past the end of the file");
}

TEST(SafetensorsErrors, HeaderLength) {
  TempDir dir;
  write_all(dir / "long.safetensors", le64(1000) + "{}");
  expect_open_error(dir / "long.safetensors", "header length 1000 runs past the end of the file");
  write_all(dir / "huge.safetensors", le64(100'000'001) + "{}");
  expect_open_error(dir / "huge.safetensors", "header length 100000001 exceeds the limit");
  write_all(dir / "zero.safetensors", le64(0));
  expect_open_error(dir / "zero.safetensors", "header is not a JSON object");
}

TEST(SafetensorsErrors, HeaderNotJsonOrNotAnObject) {
  TempDir dir;
  expect_open_error(raw_file(dir, "notjson.safetensors", "{\"a\": nope}", ""),
                    "header is not valid JSON");
  expect_open_error(raw_file(dir, "unterminated.safetensors", "{\"a\":{", ""),
                    "header is not valid JSON");
  expect_open_error(raw_file(dir, "array.safetensors", "[1, 2]", ""),
                    "header is not a JSON object");
  expect_open_error(raw_file(dir, "space.safetensors", " {}", ""), "header is not a JSON object");
  expect_open_error(raw_file(dir, "trailing.safetensors", std::string("{}\0\0\0\0", 6), ""),
                    "header is not valid JSON");
  std::string bad_utf8 = "{\"\xff\":1}";
  expect_open_error(raw_file(dir, "utf8.safetensors", bad_utf8, ""), "header is not valid JSON");
  expect_open_error(raw_file(dir, "entry.safetensors", R"({"a":[1]})", ""),
                    "tensor \"a\" is not described by a JSON object");
}

TEST(SafetensorsErrors, BadEntries) {
  TempDir dir;
  std::string four(4, '\0');
  expect_open_error(raw_file(dir, "dtype.safetensors",
                             R"({"a":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}})", four),
                    "tensor \"a\" has unknown dtype \"F33\"");
  expect_open_error(
      raw_file(dir, "nodtype.safetensors", R"({"a":{"shape":[1],"data_offsets":[0,4]}})", four),
      "tensor \"a\" has no \"dtype\" string");
  expect_open_error(raw_file(dir, "neg.safetensors",
                             R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", four),
                    "tensor \"a\" has an invalid shape [-1]");
  expect_open_error(raw_file(dir, "fdim.safetensors",
                             R"({"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})", four),
                    "has an invalid shape");
  expect_open_error(
      raw_file(dir, "overflow.safetensors",
               R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})",
               four),
      "whose size overflows");
  expect_open_error(raw_file(dir, "size.safetensors",
                             R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four),
                    "spanning 4 bytes, but shape [2] of F32 needs 8");
  expect_open_error(raw_file(dir, "reversed.safetensors",
                             R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", four),
                    "end before they begin");
  expect_open_error(raw_file(dir, "offsets.safetensors",
                             R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", four),
                    "no \"data_offsets\" pair");
  expect_open_error(raw_file(dir, "meta.safetensors", R"({"__metadata__":{"format":1}})", ""),
                    "__metadata__ value for \"format\" is not a string");
  expect_open_error(raw_file(dir, "meta2.safetensors", R"({"__metadata__":[]})", ""),
                    "__metadata__ is not a JSON object");
}

TEST(SafetensorsErrors, OffsetsMustTileTheDataSection) {
  TempDir dir;
  std::string eight(8, '\0');
  expect_open_error(
      raw_file(dir, "range.safetensors",
               R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
               R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
               eight),
      "tensor \"b\" has data_offsets [8, 12] out of range: the data section has 8 bytes");
  expect_open_error(raw_file(dir, "overlap.safetensors",
                             R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                             eight),
                    "tensors \"a\" and \"b\" overlap");
  expect_open_error(raw_file(dir, "gap.safetensors",
                             R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"F16","shape":[1],"data_offsets":[6,8]}})",
                             eight),
                    "gap of 2 bytes in the data section before tensor \"b\"");
  expect_open_error(raw_file(dir, "start.safetensors",
                             R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight),
                    "gap of 4 bytes in the data section before tensor \"a\"");
  expect_open_error(raw_file(dir, "extra.safetensors",
                             R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight),
                    "4 bytes after the last tensor");
  expect_open_error(raw_file(dir, "dup.safetensors",
                             R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                             eight),
                    "duplicate tensor name \"a\"");
  expect_open_error(
      raw_file(dir, "dupkey.safetensors",
               R"({"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight),
      "duplicate key \"dtype\"");
}

TEST(SafetensorsErrors, WrongRequests) {
  TempDir dir;
  Arena arena(1024);
  Tensor t = arena.zeros({2, 3});
  write_safetensors(dir / "w.safetensors", {{"layer.weight", t}});
  SafetensorsReader r = SafetensorsReader::open(dir / "w.safetensors");
  std::string m = error_of([&] { r.read("layer.weight", arena.alloc({3, 2})); });
  EXPECT_CONTAINS(m, "w.safetensors");
  EXPECT_CONTAINS(m, "tensor \"layer.weight\" has shape [2, 3], expected [3, 2]");
  m = error_of([&] { r.read("layer.bias", arena.alloc({3})); });
  EXPECT_CONTAINS(m, "w.safetensors");
  EXPECT_CONTAINS(m, "no tensor named \"layer.bias\"");
  m = error_of([&] { r.shape("missing"); });
  EXPECT_CONTAINS(m, "no tensor named \"missing\"");
}

TEST(SafetensorsErrors, WriterRejectsBadInput) {
  TempDir dir;
  Arena arena(1024);
  Tensor t = arena.zeros({2});
  std::string m = error_of([&] { write_safetensors(dir / "d.safetensors", {{"a", t}, {"a", t}}); });
  EXPECT_CONTAINS(m, "d.safetensors");
  EXPECT_CONTAINS(m, "tensor \"a\" is given twice");
  m = error_of([&] { write_safetensors(dir / "m.safetensors", {{"__metadata__", t}}); });
  EXPECT_CONTAINS(m, "reserved name");
  EXPECT_FALSE(fs::exists(dir / "d.safetensors"));
}

// Random corruption of a valid file never crashes the reader: it opens (and reads) or it
// throws precis::Error.
TEST(SafetensorsErrors, CorruptedFilesNeverCrash) {
  TempDir dir;
  Arena arena(1 << 14);
  Tensor a = arena.zeros({3, 5}, DType::F32);
  Tensor b = arena.zeros({7}, DType::BF16);
  Tensor c = arena.zeros({2, 2}, DType::I64);
  write_safetensors(dir / "base.safetensors", {{"a", a}, {"b", b}, {"c", c}}, {{"format", "pt"}});
  const std::string base = read_all(dir / "base.safetensors");
  std::mt19937 rng(1234);
  int opened = 0, rejected = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    std::string bytes = base;
    int edits = 1 + int(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % std::min<size_t>(bytes.size(), 200);  // mostly the header
      const char printable[] = "0123456789[]{},:\"-. eFI";
      bytes[at] = (rng() % 2) ? char(rng()) : printable[rng() % (sizeof printable - 1)];
    }
    if (rng() % 8 == 0) bytes.resize(rng() % bytes.size());
    write_all(dir / "fuzz.safetensors", bytes);
    try {
      SafetensorsReader r = SafetensorsReader::open(dir / "fuzz.safetensors");
      for (const SafetensorsEntry& e : r.entries()) {
        if (e.shape.size() > 4) continue;
        Shape s = r.shape(e.name);
        if (s.numel() > 4096) continue;
        Tensor dst = arena.alloc(s, DType::F32);
        try {
          r.read(e.name, dst);
        } catch (const Error&) {
        }
        arena.reset();
      }
      ++opened;
    } catch (const Error& e) {
      EXPECT_CONTAINS(e.what(), "fuzz.safetensors");
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 100);
}
