// event_timing.cuh -- what the standalone CUDA experiments (stream_residency.cu,
// sm_ceiling.cu) share: a CUDA-error check and the median of CUDA-event timings.
#ifndef CREDIT_EXPERIMENTS_EVENT_TIMING_CUH
#define CREDIT_EXPERIMENTS_EVENT_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

// CK(x): on a CUDA error, print it with the call and return 1 from the enclosing function.
#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e = (x);                                                                       \
    if (e != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

// The median of `runs` CUDA-event timings of `launch` (returns the enqueue's
// cudaError_t) after `warmups` untimed ones; `before(r)` runs before each, outside
// the events (e.g. an L2 flush; it returns a cudaError_t too). 1 on a CUDA error.
template <class Launch, class Before>
int medianEventMs(Launch launch, Before before, int runs, int warmups, float& ms) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int r = 0; r < runs + warmups; ++r) {
    CK(before(r));
    CK(cudaEventRecord(e0));
    CK(launch());
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float one;
    CK(cudaEventElapsedTime(&one, e0, e1));
    if (r >= warmups) t.push_back(one);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  ms = t[t.size() / 2];
  return 0;
}

#endif  // CREDIT_EXPERIMENTS_EVENT_TIMING_CUH
