// data::collate's id check (data/collator.h): with the model's vocabulary in the options, every
// id of the batch is checked on the host as it is built, an id outside it is an error naming
// the tensor, example, position and id, and the batch says it was checked (CheckedIds), on every
// backend's arena (a GPU's batch is uploaded with the mark), so the ops need not check again.
#include <vector>

#include "kernel_test.h"
#include "precis/data/collator.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/cross_entropy.h"
#include "test_support.h"

using namespace precis;
using namespace precis::testing;

namespace {

class CollateIds : public KernelTest {
 protected:
  // Two examples: sources of 3 and 2 tokens, labels of 2 and 3.
  std::vector<data::SummarizationExample> examples() const {
    return {{{5, 6, 2}, {7, 2}, 3}, {{4, 2}, {8, 9, 2}, 2}};
  }

  Seq2SeqBatch collate(const std::vector<data::SummarizationExample>& rows, int64_t vocab,
                       int32_t start = 2) {
    std::vector<const data::SummarizationExample*> pointers;
    for (const auto& e : rows) pointers.push_back(&e);
    return data::collate(pointers, {/*pad*/ 1, start, 1, vocab}, arena());
  }

  Arena& arena() {
    if (!arena_) arena_.emplace(size_t(1) << 16, device());
    return *arena_;
  }

 private:
  std::optional<Arena> arena_;
};

}  // namespace

TEST_P(CollateIds, ACheckedBatchSaysSo) {
  const Seq2SeqBatch checked = collate(examples(), 10);
  EXPECT_EQ(checked.ids_checked.below, 10);
  EXPECT_TRUE(checked.ids_checked.covers(10));  // the embedding table of the model
  EXPECT_FALSE(checked.ids_checked.covers(9));  // a smaller table still checks
  EXPECT_EQ(checked.input_ids.device, device());
  // Padded labels are -100 and pass; the ids are what they were.
  std::vector<int32_t> labels(6);
  copy(checked.labels, Tensor{labels.data(), Shape{2, 3}, DType::I32, Device::cpu()});
  EXPECT_EQ(labels, (std::vector<int32_t>{7, 2, kIgnoreIndex, 8, 9, 2}));
  // Without a vocabulary nothing is checked here: the ops check.
  const Seq2SeqBatch unchecked = collate(examples(), 0);
  EXPECT_EQ(unchecked.ids_checked.below, 0);
  EXPECT_FALSE(unchecked.ids_checked.covers(10));
}

TEST_P(CollateIds, AnIdOutsideTheVocabularyIsNamed) {
  std::vector<data::SummarizationExample> rows = examples();
  rows[1].input_ids[1] = 10;
  EXPECT_CONTAINS(error_of([&] { collate(rows, 10); }),
                  "input_ids of the batch's example 1 (position 1) holds token id 10, outside the "
                  "model's vocabulary of 10 tokens");
  rows = examples();
  rows[0].labels[0] = -5;
  EXPECT_CONTAINS(error_of([&] { collate(rows, 10); }),
                  "labels of the batch's example 0 (position 0) holds token id -5, outside the "
                  "model's vocabulary of 10 tokens (and not -100)");
  // The decoder's start token comes from the options, not the examples.
  EXPECT_CONTAINS(error_of([&] { collate(examples(), 10, /*start*/ 12); }),
                  "decoder_input_ids of the batch's example 0 (position 0) holds token id 12");
  // Unchecked, the same batch collates (the embedding op would refuse it).
  rows = examples();
  rows[1].input_ids[1] = 10;
  EXPECT_EQ(collate(rows, 0).ids_checked.below, 0);
}

INSTANTIATE_KERNEL_TEST(CollateIds);
