// The host-only support code of credit-calibrate (runtime/tools/credit-calibrate):
// its JSON writer, statistics, list parsing and generated-file reader. No GPU.
#include "CalibrateSupport.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace credit::calibrate;

TEST_CASE("JsonWriter writes nested documents", "[calibrate]") {
  JsonWriter w;
  w.beginObject();
  w.field("name", "NVIDIA H200");
  w.field("sms", 132);
  w.field("clock", 1980.5);
  w.field("big", 123456789012LL);
  w.field("ok", true);
  w.nullField("driver");
  w.key("rates");
  w.beginObject();
  w.field("2", 8.25);
  w.endObject();
  w.key("list");
  w.beginArray();
  w.value(1);
  w.value("two");
  w.beginObject();
  w.endObject();
  w.beginArray();
  w.endArray();
  w.endArray();
  w.endObject();
  REQUIRE(w.ok());
  CHECK(w.str() == "{\n"
                   "  \"name\": \"NVIDIA H200\",\n"
                   "  \"sms\": 132,\n"
                   "  \"clock\": 1980.5,\n"
                   "  \"big\": 123456789012,\n"
                   "  \"ok\": true,\n"
                   "  \"driver\": null,\n"
                   "  \"rates\": {\n"
                   "    \"2\": 8.25\n"
                   "  },\n"
                   "  \"list\": [\n"
                   "    1,\n"
                   "    \"two\",\n"
                   "    {},\n"
                   "    []\n"
                   "  ]\n"
                   "}\n");
}

TEST_CASE("JsonWriter escapes strings and maps non-finite numbers to null", "[calibrate]") {
  CHECK(jsonQuote("a\"b\\c\n\t\x01") == "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  CHECK(jsonQuote("µs") == "\"µs\"");
  CHECK(jsonNumber(std::nan("")) == "null");
  CHECK(jsonNumber(std::numeric_limits<double>::infinity()) == "null");
  CHECK(jsonNumber(3.0) == "3.0");
  CHECK(jsonNumber(0.1) == "0.1");
  CHECK(jsonNumber(1e-7) == "1e-07");
  CHECK(jsonNumber(-2.5) == "-2.5");
}

TEST_CASE("JsonWriter reports misuse", "[calibrate]") {
  JsonWriter a;
  a.beginObject();
  a.value(1);  // no key
  a.endObject();
  CHECK(!a.ok());
  JsonWriter b;
  b.beginArray();
  b.endObject();  // mismatched
  CHECK(!b.ok());
  JsonWriter c;
  c.beginObject();  // never closed
  CHECK(!c.ok());
  JsonWriter d;
  d.beginArray();
  d.key("k");  // key in an array
  CHECK(!d.ok());
}

TEST_CASE("median and lists", "[calibrate]") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({7}) == 7);
  CHECK(std::isnan(median({})));
  std::vector<long long> v;
  std::string err;
  REQUIRE(parseIntList("4K,8k,65536,1M", v, err));
  CHECK(v == std::vector<long long>{4096, 8192, 65536, 1048576});
  CHECK(!parseIntList("4096,,8", v, err));
  CHECK(err == "empty item in list '4096,,8'");
  CHECK(!parseIntList("12x", v, err));
  CHECK(err == "'12x' is not a positive integer");
  CHECK(!parseIntList("0", v, err));
  CHECK(!parseIntList("", v, err));
}

TEST_CASE("parseGeneratedSource reads a generated file's metadata", "[calibrate]") {
  // The lines credit-calibrate relies on, as the CUDA emitter writes them
  // (docs/codegen.md); the compiler tests check them on real generated files.
  const std::string src =
      "namespace credit_softmax_logits_bwd {\n"
      "inline constexpr int K_sync = 6;      // cluster barriers per row\n"
      "inline constexpr int K_mbarrier = 1;  // set-up\n"
      "inline constexpr credit::WorkloadGeometry geometry = {8, 3, 1, 3, 256};  // ...\n"
      "inline constexpr credit::TargetInfo target = credit::findTarget(\"sm_100\");  // --arch\n"
      "}\n"
      "extern \"C\" __global__ void __launch_bounds__(256, CREDIT_MIN_CTAS_PER_SM) "
      "credit_softmax_logits_bwd_control_sync(long long M, int N, int P) {}\n"
      "extern \"C\" __global__ void __launch_bounds__(256, CREDIT_MIN_CTAS_PER_SM) "
      "credit_softmax_logits_bwd_control_mbarrier(long long M, int N, int P) {}\n";
  GeneratedKernel k;
  std::string err;
  REQUIRE(parseGeneratedSource(src, k, err));
  CHECK(k.kernel == "softmax_logits_bwd");
  CHECK(k.controlSync == "credit_softmax_logits_bwd_control_sync");
  CHECK(k.controlMbarrier == "credit_softmax_logits_bwd_control_mbarrier");
  CHECK(k.keepBytesPerElem == 8);
  CHECK(k.numStages == 3);
  CHECK(k.qMax == 1);
  CHECK(k.qSum == 3);
  CHECK(k.threads == 256);
  CHECK(k.Ksync == 6);
  CHECK(k.Kmbarrier == 1);
  CHECK(k.arch == "sm_100");
  CHECK(k.rereadGeometry[4] == 0);  // no reread_geometry: the reread kernels run `geometry`
  const std::string suffix = geometryCheckSuffix(k);
  CHECK(suffix.find("credit_softmax_logits_bwd::geometry.keepBytesPerElem == 8") != std::string::npos);
  CHECK(suffix.find("credit_softmax_logits_bwd::K_sync == 6") != std::string::npos);

  // Files of this creditc open the namespace with its hidden-visibility macro.
  std::string hidden = src;
  hidden.replace(0, std::string("namespace ").size(), "namespace CREDIT_LOCAL ");
  GeneratedKernel kh;
  REQUIRE(parseGeneratedSource(hidden, kh, err));
  CHECK(kh.threads == 256);
  CHECK(kh.Ksync == 6);

  // The reread kernels' own stages (an online statistic), where the file has them.
  std::string online = src;
  online.insert(online.find("inline constexpr credit::TargetInfo"),
                "inline constexpr credit::WorkloadGeometry reread_geometry = {8, 2, 2, 3, 256, 0};\n");
  GeneratedKernel ko;
  REQUIRE(parseGeneratedSource(online, ko, err));
  CHECK(ko.numStages == 3);
  CHECK(ko.rereadGeometry[1] == 2);
  CHECK(ko.rereadGeometry[2] == 2);
  CHECK(ko.rereadGeometry[4] == 256);
  std::string badOnline = src;
  badOnline.insert(badOnline.find("inline constexpr credit::TargetInfo"),
                   "inline constexpr credit::WorkloadGeometry reread_geometry = {8, x};\n");
  GeneratedKernel kb;
  CHECK(!parseGeneratedSource(badOnline, kb, err));
  CHECK(err.find("reread_geometry") != std::string::npos);

  GeneratedKernel bad;
  CHECK(!parseGeneratedSource("int main() {}", bad, err));
  CHECK(err.find("no work-free control kernel") != std::string::npos);
  std::string noGeo = src;
  noGeo.replace(noGeo.find("credit::WorkloadGeometry"), 6, "xxxxxx");
  CHECK(!parseGeneratedSource(noGeo, bad, err));
  CHECK(err.find("geometry") != std::string::npos);
  std::string fourFields = src;
  fourFields.replace(fourFields.find("{8, 3, 1, 3, 256}"), 17, "{8, 3, 1, 3}");
  CHECK(!parseGeneratedSource(fourFields, bad, err));

  // This creditc writes a sixth field, the inputs only h reads; the five-field
  // files of earlier versions read as 0 (the struct's default).
  CHECK(k.hOnlyArrays == 0);
  CHECK(suffix.find("credit_softmax_logits_bwd::geometry.hOnlyArrays == 0") != std::string::npos);
  std::string sixFields = src;
  sixFields.replace(sixFields.find("{8, 3, 1, 3, 256}"), 17, "{8, 3, 1, 3, 256, 2}");
  GeneratedKernel k6;
  REQUIRE(parseGeneratedSource(sixFields, k6, err));
  CHECK(k6.threads == 256);
  CHECK(k6.hOnlyArrays == 2);
  CHECK(geometryCheckSuffix(k6).find("credit_softmax_logits_bwd::geometry.hOnlyArrays == 2") != std::string::npos);
  std::string sevenFields = src;
  sevenFields.replace(sevenFields.find("{8, 3, 1, 3, 256}"), 17, "{8, 3, 1, 3, 256, 2, 7}");
  CHECK(!parseGeneratedSource(sevenFields, bad, err));
  CHECK(err.find("5 or 6 fields") != std::string::npos);
  std::string negative = src;
  negative.replace(negative.find("{8, 3, 1, 3, 256}"), 17, "{8, 3, 1, 3, 256, -1}");
  CHECK(!parseGeneratedSource(negative, bad, err));
  CHECK(err.find("implausible geometry") != std::string::npos);
}
