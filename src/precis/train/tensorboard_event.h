// The bytes of TensorBoard's event files, written without a protobuf library.
//
// An event file is a sequence of TFRecords, each holding one serialized `tensorflow.Event`
// (tensorboard/compat/proto/event.proto). We encode only the fields TensorBoard and the Hub's
// metrics tab read: wall_time (1, double), step (2, int64), file_version (3), summary (5) and
// source_metadata (10). A summary holds one value: a scalar as `simple_value` (float32, what
// torch's SummaryWriter.add_scalar writes) or a text as a DT_STRING tensor of shape [1] with the
// "text" plugin's metadata (SummaryWriter.add_text).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace precis::train::tensorboard {

// One TFRecord: the data's length (uint64, little-endian), the masked CRC-32C of those 8 bytes,
// the data, the masked CRC-32C of the data (each CRC uint32, little-endian).
std::string tfrecord(std::string_view data);

// The first event of every file: file_version "brain.Event:2" (and the writer's name).
std::string file_version_event(double wall_time);

// A scalar summary; `value` is stored as float32, as TensorBoard's simple_value is.
std::string scalar_event(double wall_time, int64_t step, std::string_view tag, double value);

// A text summary under `tag` exactly as given (SummaryWriter appends "/text_summary" to the
// user's tag before this point; TensorBoardWriter::add_text does the same).
std::string text_event(double wall_time, int64_t step, std::string_view tag, std::string_view text);

}  // namespace precis::train::tensorboard
