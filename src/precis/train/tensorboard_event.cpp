#include "precis/train/tensorboard_event.h"

#include <cstring>

#include "precis/core/crc32c.h"

namespace precis::train::tensorboard {
namespace {

// Protobuf wire format, the four cases we need: varint (0), 64-bit (1), length-delimited (2),
// 32-bit (5). Fields are appended in field-number order, as protobuf's own serializers do.
class Message {
 public:
  void varint(int field, uint64_t v) {
    key(field, 0);
    put_varint(v);
  }
  void fixed64(int field, double v) {
    key(field, 1);
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    put_little_endian(bits, 8);
  }
  void fixed32(int field, float v) {
    key(field, 5);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    put_little_endian(bits, 4);
  }
  void bytes(int field, std::string_view v) {
    key(field, 2);
    put_varint(v.size());
    bytes_.append(v);
  }
  const std::string& str() const { return bytes_; }

 private:
  void key(int field, int wire_type) { put_varint(uint64_t(field) << 3 | uint64_t(wire_type)); }
  void put_varint(uint64_t v) {
    while (v >= 0x80) {
      bytes_.push_back(char((v & 0x7F) | 0x80));
      v >>= 7;
    }
    bytes_.push_back(char(v));
  }
  void put_little_endian(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(char(v >> (8 * i) & 0xFF));
  }
  std::string bytes_;
};

std::string little_endian(uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(char(v >> (8 * i) & 0xFF));
  return out;
}

// Event{wall_time, step, summary{value}}; step 0 is left out, as proto3 leaves out defaults.
std::string summary_event(double wall_time, int64_t step, const Message& value) {
  Message summary;
  summary.bytes(1, value.str());  // Summary.value
  Message event;
  event.fixed64(1, wall_time);
  if (step != 0) event.varint(2, uint64_t(step));
  event.bytes(5, summary.str());
  return event.str();
}

}  // namespace

std::string tfrecord(std::string_view data) {
  const std::string length = little_endian(data.size(), 8);
  std::string record = length;
  record += little_endian(masked_crc32c(length), 4);
  record.append(data);
  record += little_endian(masked_crc32c(data), 4);
  return record;
}

std::string file_version_event(double wall_time) {
  Message source;
  source.bytes(1, "precis");  // SourceMetadata.writer
  Message event;
  event.fixed64(1, wall_time);
  event.bytes(3, "brain.Event:2");
  event.bytes(10, source.str());
  return event.str();
}

std::string scalar_event(double wall_time, int64_t step, std::string_view tag, double value) {
  Message v;
  v.bytes(1, tag);                    // Summary.Value.tag
  v.fixed32(2, static_cast<float>(value));  // Summary.Value.simple_value
  return summary_event(wall_time, step, v);
}

std::string text_event(double wall_time, int64_t step, std::string_view tag, std::string_view text) {
  constexpr uint64_t kDtString = 7;  // tensorflow.DataType.DT_STRING
  Message dim;
  dim.varint(1, 1);  // TensorShapeProto.Dim.size
  Message shape;
  shape.bytes(2, dim.str());  // TensorShapeProto.dim
  Message tensor;
  tensor.varint(1, kDtString);  // TensorProto.dtype
  tensor.bytes(2, shape.str());  // TensorProto.tensor_shape
  tensor.bytes(8, text);         // TensorProto.string_val
  // The text plugin's data is TextPluginData{version: 0}: all defaults, so empty content.
  Message plugin;
  plugin.bytes(1, "text");  // PluginData.plugin_name
  Message metadata;
  metadata.bytes(1, plugin.str());  // SummaryMetadata.plugin_data
  Message v;
  v.bytes(1, tag);
  v.bytes(8, tensor.str());    // Summary.Value.tensor
  v.bytes(9, metadata.str());  // Summary.Value.metadata
  return summary_event(wall_time, step, v);
}

}  // namespace precis::train::tensorboard
