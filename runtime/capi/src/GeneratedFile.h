// What the C API reads from the text of a generated file: the kernel's name and
// signature, the kernel lines (one per form and vector width), the target, and the
// dispatch's device profile and traffic figures (creditc --profile).
#ifndef CREDIT_CAPI_GENERATED_FILE_H
#define CREDIT_CAPI_GENERATED_FILE_H

#include "credit/runtime/Model.h"

#include <string>
#include <vector>

namespace credit::capi {

// CREDIT_{ROW,CLUSTER,PERSISTENT,CONTROL}_KERNEL(name, ..., Workload, Form[, VEC]).
struct KernelLine {
  std::string name;      // credit_layernorm_cluster_sync_v4
  std::string workload;  // the Workload type as the line names it
  std::string form;      // a credit::Form enumerator: ClusterSync
  int vec = 1;
};

struct ProfileFigures {
  bool present = false;
  model::Device device{};
  model::Traffic traffic{};
};

struct GeneratedFile {
  std::string prefix;     // the symbols' prefix: credit_layernorm, or creditc --prefix's name
  std::string kernel;     // layernorm (the prefix without credit_)
  std::string signature;  // x:in:row:f32;gamma:in:broadcast:f32;...
  std::string arch;       // the file's target (--arch), "" if not stated
  std::vector<KernelLine> kernels;
  ProfileFigures profile;
};

// Parses `source`; returns "" on success, else what is missing or malformed.
std::string parseGeneratedFile(const std::string& source, GeneratedFile& out);

}  // namespace credit::capi

#endif  // CREDIT_CAPI_GENERATED_FILE_H
