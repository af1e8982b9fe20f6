// Runs the float64 reference of kernel `online` or `builtin`
// (Inputs/online.credit) on rows with special values and prints every output
// exactly (%a), NaN as "nan".
#include <cmath>
#include <cstdio>
#include <vector>

#ifndef KERNEL
#error "define KERNEL"
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
extern "C" void CAT(CAT(credit_, KERNEL), _reference)(const float *x, const float *w, double *mx,
                                                     double *s, double *t, double *l, double *p,
                                                     long long M, long long N);

static void print(const char *name, double v) {
  if (std::isnan(v))
    std::printf(" %s=nan", name);
  else
    std::printf(" %s=%a", name, v);
}

static void run(const char *what, std::vector<float> x, std::vector<float> w) {
  const long long N = static_cast<long long>(x.size());
  double mx, s, t, l;
  std::vector<double> p(N);
  CAT(CAT(credit_, KERNEL), _reference)(x.data(), w.data(), &mx, &s, &t, &l, p.data(), 1, N);
  std::printf("%s:", what);
  print("m", mx);
  print("s", s);
  print("t", t);
  print("l", l);
  print("p0", p[0]);
  std::printf("\n");
}

int main() {
  const float inf = INFINITY;
  run("all-minus-inf", {-inf, -inf, -inf, -inf}, {1, 2, 3, 4});
  run("all-equal", {3, 3, 3, 3}, {1, 2, 3, 4});
  run("huge", {3e38f, -3e38f, 1e38f, 3e38f}, {1, 2, 3, 4});
  run("some-minus-inf", {-inf, 0, 0, -inf}, {1, 2, 3, 4});
  run("plus-inf", {inf, 0, 1, 2}, {1, 2, 3, 4});
  run("nan", {0, NAN, 1, 2}, {1, 2, 3, 4});
  run("n1", {-5}, {0.5f});
  run("mixed", {0.25f, -1.5f, 2, 0.75f}, {1, -2, 0.5f, 3});
  return 0;
}
