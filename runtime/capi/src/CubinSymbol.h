// The initial bytes of a global variable in a cubin (an ELF64 image), read without a
// driver: the symbol's section's file offset plus its value.
#ifndef CREDIT_CAPI_CUBIN_SYMBOL_H
#define CREDIT_CAPI_CUBIN_SYMBOL_H

#include <string>
#include <vector>

namespace credit::capi {

// Returns "" and fills `bytes` (the symbol's st_size bytes), or an error message.
std::string readCubinSymbol(const std::vector<char>& cubin, const std::string& symbol, std::vector<char>& bytes);

}  // namespace credit::capi

#endif  // CREDIT_CAPI_CUBIN_SYMBOL_H
