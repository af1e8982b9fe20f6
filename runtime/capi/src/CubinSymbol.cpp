#include "CubinSymbol.h"

#include <elf.h>

#include <cstring>

namespace credit::capi {

namespace {
template <class T>
bool readAt(const std::vector<char>& img, unsigned long long off, T& out) {
  if (off > img.size() || img.size() - off < sizeof(T)) return false;
  std::memcpy(&out, img.data() + off, sizeof(T));
  return true;
}
}  // namespace

std::string readCubinSymbol(const std::vector<char>& cubin, const std::string& symbol, std::vector<char>& bytes) {
  Elf64_Ehdr eh;
  if (!readAt(cubin, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
    return "not an ELF64 cubin";
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) return "unexpected ELF section header size";
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (unsigned i = 0; i < eh.e_shnum; ++i)
    if (!readAt(cubin, eh.e_shoff + static_cast<unsigned long long>(i) * sizeof(Elf64_Shdr), sections[i]))
      return "truncated ELF section headers";
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_SYMTAB || symtab.sh_entsize != sizeof(Elf64_Sym) || symtab.sh_link >= sections.size())
      continue;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    for (unsigned long long off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      if (!readAt(cubin, symtab.sh_offset + off, sym)) return "truncated ELF symbol table";
      if (sym.st_name >= strtab.sh_size) continue;
      const unsigned long long nameOff = strtab.sh_offset + sym.st_name;
      if (nameOff >= cubin.size()) continue;
      const char* name = cubin.data() + nameOff;
      const size_t maxLen = cubin.size() - nameOff;
      if (strnlen(name, maxLen) == maxLen || symbol != name) continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sections.size()) return symbol + ": not defined in the cubin";
      const Elf64_Shdr& sec = sections[sym.st_shndx];
      if (sec.sh_type == SHT_NOBITS) return symbol + ": has no initial value in the cubin";
      if (sym.st_value > sec.sh_size || sec.sh_size - sym.st_value < sym.st_size) return symbol + ": outside its section";
      const unsigned long long at = sec.sh_offset + sym.st_value;
      if (at > cubin.size() || cubin.size() - at < sym.st_size) return symbol + ": outside the image";
      bytes.assign(cubin.data() + at, cubin.data() + at + sym.st_size);
      return "";
    }
  }
  return symbol + ": not found in the cubin";
}

}  // namespace credit::capi
