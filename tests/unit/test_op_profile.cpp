// The per-op profile (kernels/op_profile.h): ops file their calls and FLOP under the phase
// set at the time, a call nested in another op's timer counts toward the outer one only, and
// nothing is filed while profiling is off.
#include <gtest/gtest.h>

#include <vector>

#include "precis/kernels/linear.h"
#include "precis/kernels/op_profile.h"

#include "kernels/kernel_test.h"

using namespace precis;

namespace {

struct ProfileOn {
  ProfileOn() { op_profile_enable(true), op_profile_reset(), op_profile_phase(""); }
  ~ProfileOn() { op_profile_enable(false), op_profile_reset(), op_profile_phase(""); }
};

const OpProfileRow* find_row(const std::vector<OpProfileRow>& rows, const std::string& phase,
                             const std::string& op) {
  for (const OpProfileRow& row : rows)
    if (row.phase == phase && row.op == op) return &row;
  return nullptr;
}

TEST(OpProfile, FilesCallsAndFlopUnderThePhase) {
  ProfileOn on;
  std::vector<float> x(3 * 4, 1.0f), w(5 * 4, 1.0f), y(3 * 5), dy(3 * 5, 1.0f), dx(3 * 4),
      dw(5 * 4, 0.0f);
  op_profile_phase("forward");
  for (int i = 0; i < 2; ++i)
    linear_forward(precis::testing::on_cpu(x, {3, 4}), precis::testing::on_cpu(w, {5, 4}), Tensor{},
                   precis::testing::on_cpu(y, {3, 5}));
  op_profile_phase("backward");
  // dx only: one GEMM of 2·3·4·5 FLOP.
  linear_backward(precis::testing::on_cpu(dy, {3, 5}), precis::testing::on_cpu(x, {3, 4}),
                  precis::testing::on_cpu(w, {5, 4}), precis::testing::on_cpu(dx, {3, 4}), Tensor{}, Tensor{});
  std::vector<OpProfileRow> rows = op_profile_rows();
  ASSERT_EQ(rows.size(), 2u);
  const OpProfileRow* forward = find_row(rows, "forward", "linear");
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->calls, 2);
  EXPECT_EQ(forward->flop, 2 * 2.0 * 3 * 4 * 5);
  const OpProfileRow* backward = find_row(rows, "backward", "linear backward");
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ(backward->calls, 1);
  EXPECT_EQ(backward->flop, 2.0 * 3 * 4 * 5);
  EXPECT_GE(forward->seconds, 0.0);
  const std::string table = op_profile_table(1, 1.0, 100.0);
  EXPECT_NE(table.find("linear backward"), std::string::npos);
  EXPECT_NE(table.find("(outside ops)"), std::string::npos);
}

TEST(OpProfile, NestedCallsCountTowardTheOuterOp) {
  ProfileOn on;
  {
    OpTimer outer("outer", 10.0);
    OpTimer inner("inner", 5.0);
  }
  { OpTimer alone("inner", 1.0); }
  std::vector<OpProfileRow> rows = op_profile_rows();
  ASSERT_EQ(rows.size(), 2u);
  const OpProfileRow* outer = find_row(rows, "", "outer");
  const OpProfileRow* inner = find_row(rows, "", "inner");
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(outer->flop, 10.0);
  EXPECT_EQ(inner->calls, 1);
  EXPECT_EQ(inner->flop, 1.0);
}

TEST(OpProfile, NothingIsFiledWhileOff) {
  op_profile_enable(false);
  op_profile_reset();
  { OpTimer timer("linear", 1.0); }
  EXPECT_TRUE(op_profile_rows().empty());
  // A timer started while off and ended while on files nothing, and leaves no depth behind.
  {
    OpTimer timer("straddling", 1.0);
    op_profile_enable(true);
  }
  { OpTimer after("after", 2.0); }
  std::vector<OpProfileRow> rows = op_profile_rows();
  op_profile_enable(false);
  op_profile_reset();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].op, "after");
}

}  // namespace
