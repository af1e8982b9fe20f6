// The layernorm_bf16 fixture (a bf16 row kept on chip as bf16, an f16 broadcast input,
// a bf16 row output and an f32 per-row output) on the GPU. The reference sees the
// inputs as the kernels do, rounded to their storage types.
#include "device/fixtures/layernorm_bf16.cu"
#include "library/LayerNormReference.h"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) { credit_test::layerNormReference(h, 1); }
const credit_test::Spec kSpec{"layernorm_bf16", credit_layernorm_bf16::kWorkload, 3, reference, {},
                              credit_test::elemsOf<credit_layernorm_bf16::Workload>()};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("layernorm_bf16", kSpec)
