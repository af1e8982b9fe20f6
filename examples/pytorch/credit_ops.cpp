// PyTorch bindings of two creditc-generated kernels (layernorm.credit and
// quant_int8.credit), built by credit_torch.py with torch.utils.cpp_extension.load
// together with the generated .cu files. Only the extern "C" launch API of the
// headers that `creditc --header` writes is used; every argument is checked here
// before anything reaches the launchers, which validate the launch again (Eq. 3,
// SMEM, cluster size) and return a status.
//
// Errors are plain C++ exceptions that pybind11 itself translates --
// std::runtime_error: RuntimeError, pybind11::type_error: TypeError,
// std::invalid_argument: ValueError -- with messages built from std::string,
// not TORCH_CHECK*: with torch 2.11.0+cu130 every TORCH_CHECK /
// TORCH_CHECK_VALUE whose message formatted an integer (v.sizes(), P, the
// status) killed the process with SIGSEGV while those formatting only strings,
// devices and dtypes raised normally. credit_torch.py checks the values in
// Python first; the test also calls the module directly for each error type.
#include <torch/extension.h>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <stdexcept>
#include <string>
#include <tuple>

#include "layernorm.h"   // credit_layernorm_* (creditc --header)
#include "quant_int8.h"  // credit_quant_int8_*

namespace {

// RuntimeError, TypeError, ValueError in Python.
void checkRuntime(bool ok, const std::string& message) {
  if (!ok) throw std::runtime_error(message);
}
void checkType(bool ok, const std::string& message) {
  if (!ok) throw pybind11::type_error(message);
}
void checkValue(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

std::string shapeText(const torch::Tensor& t) {
  std::string s = "[";
  for (int64_t d = 0; d < t.dim(); ++d) s += (d ? ", " : "") + std::to_string(t.size(d));
  return s + "]";
}
std::string dtypeText(const torch::Tensor& t) { return c10::toString(t.scalar_type()); }

// x: a CUDA float32 tensor, contiguous, rows of N = x.size(-1) elements.
void checkRows(const torch::Tensor& x, const char* name) {
  const std::string n = name;
  checkRuntime(x.is_cuda(), n + " must be a CUDA tensor, got one on " + x.device().str());
  checkType(x.scalar_type() == torch::kFloat32, n + " must be float32, got " + dtypeText(x));
  checkValue(x.dim() >= 1, n + " must have at least one dimension (rows of N)");
  checkValue(x.size(-1) > 0, n + ": the row width N = size(-1) must be positive");
  checkRuntime(x.is_contiguous(), n + " must be contiguous (call .contiguous() first)");
}

// A vector shared by every row: [N], float32, contiguous, on x's device.
void checkBroadcast(const torch::Tensor& v, const torch::Tensor& x, const char* name) {
  const std::string n = name;
  checkRuntime(v.device() == x.device(),
               n + " must be on " + x.device().str() + ", got " + v.device().str());
  checkType(v.scalar_type() == torch::kFloat32, n + " must be float32, got " + dtypeText(v));
  checkValue(v.dim() == 1 && v.size(0) == x.size(-1),
             n + " must have shape [" + std::to_string(x.size(-1)) + "] (the row width of x), got " +
                 shapeText(v));
  checkRuntime(v.is_contiguous(), n + " must be contiguous");
}

// The Eq. 3 bound of the cluster variant for (P, protocol).
using MaxLegalN = long long (*)(int, int);

long long layernormClusterBound(int P, int protocol) {
  return credit_layernorm_max_legal_n(CREDIT_LAYERNORM_VARIANT_CLUSTER, P, protocol);
}
long long quantInt8ClusterBound(int P, int protocol) {
  return credit_quant_int8_max_legal_n(CREDIT_QUANT_INT8_VARIANT_CLUSTER, P, protocol);
}

// The launch plan for a row width: the cluster kernel with P CTAs per row, P the
// power of two in 1..8 closest above N / 8192 (about 8K elements of the row per
// CTA, the crossover seen on the H200, docs/results/README.md), raised while Eq. 3 forbids
// it, up to 16; the reread kernel (no SMEM bound) when no P is legal.
std::tuple<std::string, int> plan(long long N, int protocol, MaxLegalN maxLegal) {
  int P = 1;
  while (P < 8 && static_cast<long long>(P) * 8192 < N) P *= 2;
  while (P <= 16 && N > maxLegal(P, protocol)) P *= 2;
  if (P > 16) return {"reread", 1};
  return {"cluster", P};
}

void checkProtocol(int64_t protocol) {
  checkValue(protocol == 0 || protocol == 1,
             "protocol must be 0 (sync) or 1 (mbarrier), got " + std::to_string(protocol));
}

void checkStatus(int status, const char* what, const std::string& variant, int P,
                 const char* (*toString)(int)) {
  checkRuntime(status == 0, std::string(what) + " (" + variant + ", P = " + std::to_string(P) +
                               ") was not launched: " + toString(status) + " (status " +
                               std::to_string(status) + ")");
}

// y = layernorm(x) * weight + bias over the last dimension, eps = 1e-5 (the
// param of layernorm.credit, compiled in). P = 0: choose by plan().
torch::Tensor layernorm(const torch::Tensor& x, const torch::Tensor& weight,
                        const torch::Tensor& bias, int64_t P, int64_t protocol) {
  checkRows(x, "x");
  checkBroadcast(weight, x, "weight");
  checkBroadcast(bias, x, "bias");
  checkProtocol(protocol);
  checkValue(P >= 0 && P <= 16, "P must be 0 (automatic) or 1, 2, 4, 8, 16, got " + std::to_string(P));
  const long long N = x.size(-1);
  const long long M = x.numel() / N;
  c10::cuda::CUDAGuard guard(x.device());
  torch::Tensor y = torch::empty_like(x);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream(x.device().index()).stream();
  std::string variant = "cluster";
  int p = static_cast<int>(P);
  if (p == 0) std::tie(variant, p) = plan(N, static_cast<int>(protocol), layernormClusterBound);
  int status =
      variant == "reread"
          ? credit_layernorm_launch_reread(x.data_ptr<float>(), weight.data_ptr<float>(),
                                           bias.data_ptr<float>(), y.data_ptr<float>(), M, N, stream)
          : credit_layernorm_launch_cluster(x.data_ptr<float>(), weight.data_ptr<float>(),
                                            bias.data_ptr<float>(), y.data_ptr<float>(), M, N, p,
                                            static_cast<int>(protocol), stream);
  checkStatus(status, "credit layernorm", variant, p, credit_layernorm_status_string);
  return y;
}

// Row-wise symmetric int8 quantization: (q int8 like x, scale float32 x.shape[:-1]).
std::tuple<torch::Tensor, torch::Tensor> quant_int8(const torch::Tensor& x, int64_t P,
                                                    int64_t protocol) {
  checkRows(x, "x");
  checkProtocol(protocol);
  checkValue(P >= 0 && P <= 16, "P must be 0 (automatic) or 1, 2, 4, 8, 16, got " + std::to_string(P));
  const long long N = x.size(-1);
  const long long M = x.numel() / N;
  c10::cuda::CUDAGuard guard(x.device());
  torch::Tensor q = torch::empty(x.sizes(), x.options().dtype(torch::kInt8));
  torch::Tensor scale = torch::empty(x.sizes().slice(0, x.dim() - 1), x.options());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream(x.device().index()).stream();
  std::string variant = "cluster";
  int p = static_cast<int>(P);
  if (p == 0) std::tie(variant, p) = plan(N, static_cast<int>(protocol), quantInt8ClusterBound);
  int status =
      variant == "reread"
          ? credit_quant_int8_launch_reread(x.data_ptr<float>(), q.data_ptr<int8_t>(),
                                            scale.data_ptr<float>(), M, N, stream)
          : credit_quant_int8_launch_cluster(x.data_ptr<float>(), q.data_ptr<int8_t>(),
                                             scale.data_ptr<float>(), M, N, p,
                                             static_cast<int>(protocol), stream);
  checkStatus(status, "credit quant_int8", variant, p, credit_quant_int8_status_string);
  return {q, scale};
}

std::tuple<std::string, int> layernorm_plan(int64_t N, int64_t protocol) {
  checkProtocol(protocol);
  checkValue(N > 0, "N must be positive");
  return plan(N, static_cast<int>(protocol), layernormClusterBound);
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "creditc-generated kernels (layernorm, quant_int8) on torch tensors";
  m.def("layernorm", &layernorm, "LayerNorm over the last dimension (eps = 1e-5)",
        py::arg("x"), py::arg("weight"), py::arg("bias"), py::arg("P") = 0, py::arg("protocol") = 0);
  m.def("quant_int8", &quant_int8, "Row-wise symmetric int8 quantization: (q, scale)",
        py::arg("x"), py::arg("P") = 0, py::arg("protocol") = 0);
  m.def("layernorm_plan", &layernorm_plan, "(variant, P) that layernorm(P=0) uses for width N",
        py::arg("N"), py::arg("protocol") = 0);
  m.def("layernorm_signature", [] { return std::string(credit_layernorm_signature()); });
  m.def("layernorm_max_legal_n", [](const std::string& variant, int P, int protocol) {
    if (variant == "cluster") return credit_layernorm_max_legal_n(CREDIT_LAYERNORM_VARIANT_CLUSTER, P, protocol);
    if (variant == "staged") return credit_layernorm_max_legal_n(CREDIT_LAYERNORM_VARIANT_STAGED, P, protocol);
    if (variant == "reread") return credit_layernorm_max_legal_n(CREDIT_LAYERNORM_VARIANT_REREAD, P, protocol);
    return 0LL;
  });
}
