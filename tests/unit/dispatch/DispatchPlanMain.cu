// Prints the plan of a generated file's model-driven dispatch
// (credit_<K>::dispatch::plan, creditc --profile) for every "M N tB" line of
// stdin, under the --arch target's SMEM limit: no GPU needed. check_dispatch.py
// compares it with `creditc predict` at the same points (docs/cost-model.md,
// "Dispatch": one implementation of the model, credit/runtime/Model.h).
//   nvcc -DCREDIT_GEN_FILE='"layernorm.cu"' -DCREDIT_NS=credit_layernorm ...
#include CREDIT_GEN_FILE

#include <cstdio>

int main() {
  long long M = 0, N = 0;
  double tB = 0.0;
  while (std::scanf("%lld %lld %lf", &M, &N, &tB) == 3) {
    const credit_plan p =
        CREDIT_NS::dispatch::plan(M, N, tB, CREDIT_NS::target.smemOptinBytes);
    std::printf("%lld %lld %.17g %d %d %d %d %d %.17g\n", M, N, tB, p.variant, p.P, p.protocol,
                p.baseline, p.evaluated, p.deltaT_ms);
  }
  return 0;
}
