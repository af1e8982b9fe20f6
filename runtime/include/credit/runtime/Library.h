// credit/runtime/Library.h -- the device template library and the launch headers,
// embedded in the runtime at build time.
//
// NVRTC gets the device headers through nvrtcCreateProgram's header arguments
// (compileToCubin), so a generated file that #includes <credit/device/row_kernel.cuh>
// compiles with no include path; the kernel cache hashes their text. A self-contained
// file (creditc --standalone) inlines them instead.
#ifndef CREDIT_RUNTIME_LIBRARY_H
#define CREDIT_RUNTIME_LIBRARY_H

#include <cstddef>
#include <string>

#include "credit/runtime/EmbeddedSources.h"

namespace credit {

// The device library (credit/device/*.cuh and the constexpr rules it includes), in
// dependency order: every header after the ones it includes. NVRTC-compatible.
const EmbeddedHeader* deviceLibraryHeaders(std::size_t* count);
// The launch headers of a generated file's host section (Model.h, Launch.h,
// Dispatch.h), in dependency order; they include device headers of the list above.
const EmbeddedHeader* hostLibraryHeaders(std::size_t* count);

// The headers' texts concatenated in dependency order, without their #include lines
// of credit/ headers (include guards keep each once): the device library, then, with
// `host`, the launch headers. What a self-contained generated file pastes.
std::string inlineLibraryHeaders(bool host);

// SHA-256 (hex) of every embedded header's name and text: part of the kernel cache key.
const std::string& libraryDigest();

}  // namespace credit

#endif  // CREDIT_RUNTIME_LIBRARY_H
