// The workload constants of the layernorm fixture (tests/device/fixtures), on
// the host: what the launchers' describe<> reads, without a GPU.
#ifndef CREDIT_TESTS_UNIT_RUNTIME_LAYERNORMWORKLOAD_H
#define CREDIT_TESTS_UNIT_RUNTIME_LAYERNORMWORKLOAD_H

#include "credit/device/workload.cuh"

namespace credit::test {

struct Layernorm {
  using Elem = device::Elem;
  using Kind = device::Kind;
  using Operand = device::Operand;
  using Reduce = device::Reduce;
  static constexpr int kStages = 2;
  static constexpr int kQ[kStages] = {1, 1};
  static constexpr Reduce kReduce[] = {Reduce::Sum, Reduce::Sum};
  static constexpr Operand kInputs[] = {{Kind::Row, Elem::F32}, {Kind::Broadcast, Elem::F32}, {Kind::Broadcast, Elem::F32}};
  static constexpr Operand kOutputs[] = {{Kind::Row, Elem::F32}};
  static constexpr unsigned kReads[kStages + 1] = {0b001, 0b001, 0b111};
  static constexpr int kNumKept = 1;
  static constexpr int kKept[kNumKept] = {0};
  static constexpr int kSmemSlot[kNumKept] = {0};
  static constexpr int kMaterialize[kNumKept] = {-1};
  static constexpr int kPartialDrop = -1;
  static constexpr bool kPartialDropReadLate = false;
  static constexpr unsigned kHoisted = 0b110;
  static constexpr unsigned kPrefetchL2 = 0b000;
  static constexpr int kThreads = 256, kWideThreads = 512;
  static constexpr bool kFastMath = false;
};

} // namespace credit::test

#endif // CREDIT_TESTS_UNIT_RUNTIME_LAYERNORMWORKLOAD_H
