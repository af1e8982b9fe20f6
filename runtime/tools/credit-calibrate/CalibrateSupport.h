// CalibrateSupport.h -- the host-only pieces of credit-calibrate (plain C++17,
// no CUDA, no LLVM), kept apart so the runtime unit tests cover them on
// machines without a GPU or nvcc:
//   * JsonWriter: the tiny JSON writer the device profile is written with
//     (the runtime never links LLVM, so no llvm::json here);
//   * median, list parsing;
//   * parseGeneratedSource: the facts credit-calibrate needs from a creditc-
//     generated .cu file (kernel name, WorkloadGeometry, K per protocol) to
//     launch its work-free control kernels through the runtime's JIT.
// The profile schema is documented in docs/cost-model.md.
#ifndef CREDIT_CALIBRATE_SUPPORT_H
#define CREDIT_CALIBRATE_SUPPORT_H

#include <string>
#include <vector>

namespace credit {
namespace calibrate {

// Streaming JSON writer with 2-space indentation. Objects and arrays nest;
// key() must precede every value inside an object. Numbers: integers print
// exactly, doubles with up to 9 significant digits, non-finite doubles as
// null (JSON has no NaN/Inf). Misuse (a value without key in an object, an
// unbalanced end) is a programming error: ok() turns false and stays false.
class JsonWriter {
 public:
  JsonWriter() = default;

  void beginObject();
  void endObject();
  void beginArray();
  void endArray();
  void key(const std::string& k);
  void value(const std::string& s);
  void value(const char* s);
  void value(double d);
  void value(long long i);
  void value(int i) { value(static_cast<long long>(i)); }
  void value(bool b);
  void null();

  // key + value shorthands.
  template <class T>
  void field(const std::string& k, const T& v) {
    key(k);
    value(v);
  }
  void nullField(const std::string& k) {
    key(k);
    null();
  }

  // The document so far; complete (and ok()) once every container is closed.
  const std::string& str() const { return out_; }
  bool ok() const { return ok_ && stack_.empty() && wroteRoot_; }

 private:
  struct Level {
    bool object;
    int count;
    bool keyPending;
  };
  void beforeValue();
  void newline();
  void raw(const std::string& s) { out_ += s; }

  std::string out_;
  std::vector<Level> stack_;
  bool ok_ = true;
  bool wroteRoot_ = false;
};

// JSON string literal (quotes included) with \" \\ \n \r \t \b \f and \u00XX
// escapes for the other control characters; bytes >= 0x80 pass through (UTF-8).
std::string jsonQuote(const std::string& s);

// Shortest round-trip-safe-enough text of a finite double ("%.9g"); "null"
// for NaN and infinities.
std::string jsonNumber(double d);

// Median of `v` (the mean of the two middle values for an even count); NaN
// for an empty vector.
double median(std::vector<double> v);

// "4096,8192,65536" -> {4096, 8192, 65536}; also accepts "4K"/"64K"/"1M"
// suffixes (K = 1024). Returns false with `error` set on an empty item, a
// non-number or a value < 1.
bool parseIntList(const std::string& text, std::vector<long long>& out, std::string& error);

// What credit-calibrate reads from a generated .cu file (docs/codegen.md).
struct GeneratedKernel {
  std::string kernel;          // K: the file defines credit_K_control_sync / _mbarrier
  std::string controlSync;     // "credit_K_control_sync"
  std::string controlMbarrier; // "credit_K_control_mbarrier"
  // credit::WorkloadGeometry, as the file's `geometry` constant:
  int keepBytesPerElem = 0, numStages = 0, qMax = 0, qSum = 0, threads = 0;
  int hOnlyArrays = 0;           // the sixth field; files of creditc before it have five (0)
  // The file's `reread_geometry` (the reread kernel's own stages), all 0 where it has none.
  int rereadGeometry[6] = {0, 0, 0, 0, 0, 0};
  int Ksync = 0, Kmbarrier = 0;  // K_sync, K_mbarrier
  std::string arch;              // the file's --arch (findTarget("sm_90") -> "sm_90")
};

// Finds the control kernels' names and the metadata constants of namespace
// credit_K. Fails (false, `error` says what is missing) on a file without
// control kernels (generated with --variant excluding control) or without the
// metadata lines.
bool parseGeneratedSource(const std::string& text, GeneratedKernel& out, std::string& error);

// Text appended to the source before it is JIT-compiled: static_asserts that
// the parsed figures equal the file's own constants, so a file this parser
// misreads fails to compile instead of being timed with the wrong footprint.
std::string geometryCheckSuffix(const GeneratedKernel& k);

}  // namespace calibrate
}  // namespace credit

#endif  // CREDIT_CALIBRATE_SUPPORT_H
