// Prints the plan of a generated file's model-driven dispatch (creditc --profile:
// credit::host::planFor over the file's kDispatch, credit/runtime/Dispatch.h) for
// every "M N tB s2..s16" line of stdin, under the --arch target's SMEM limit: no GPU
// needed. check_dispatch.py compares it with `creditc predict` at the same points
// (docs/cost-model.md, "Dispatch": one implementation of the model, Model.h).
//   nvcc -I<credit include> -DCREDIT_GEN_FILE='"layernorm.cu"' -DCREDIT_NS=credit_layernorm ...
#include CREDIT_GEN_FILE

#include <cstdio>

// Each line: M N tB s2 s4 s8 s16 -- T_slice(P) for P = 2..16, 0: not measured.
int main() {
  long long M = 0, N = 0;
  double tB = 0.0, tSlice[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  while (std::scanf("%lld %lld %lf %lf %lf %lf %lf", &M, &N, &tB, &tSlice[1], &tSlice[2], &tSlice[3],
                    &tSlice[4]) == 7) {
    const credit_plan p = credit::host::planFor(CREDIT_NS::kDispatch, M, N, tB,
                                                CREDIT_NS::kWorkload.target.smemOptinBytes, tSlice);
    std::printf("%lld %lld %.17g %d %d %d %d %d %.17g\n", M, N, tB, p.variant, p.P, p.protocol,
                p.baseline, p.evaluated, p.deltaT_ms);
  }
  return 0;
}
