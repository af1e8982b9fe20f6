//===- Output.h - creditc's input reader and output writer -------*- C++ -*-===//
//
// Every file creditc reads as its source and every file it writes goes through
// here, so that one contract holds for all of them (docs/usage.md, "Output
// files"):
//  - the source is read once, from a file or from standard input ("-"), and at
//    most kMaxSourceBytes of it: an endless stream (/dev/zero) ends with an
//    error, never a hang;
//  - the outputs of one invocation are all-or-nothing: each is written to a
//    temporary file beside its destination, every write is checked, and the
//    temporaries are renamed into place only once all of them are complete;
//  - an output never replaces an input of the invocation (the source, the
//    profile) and never replaces anything but a regular file: a character
//    device (/dev/null) or a FIFO is written into, like standard output ("-"),
//    once every staged file is complete; a directory, socket or block device
//    is refused. No two outputs name the same file.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_DRIVER_OUTPUT_H
#define CREDIT_DRIVER_OUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace credit {

/// The largest source creditc reads (16 MiB): a .credit file is a few hundred
/// bytes; anything near this is a mistake (a binary, an endless stream).
inline constexpr size_t kMaxSourceBytes = size_t(16) << 20;

/// Reads the source `path` ("-": standard input) into a buffer named
/// `bufferName`. Fails, with a message naming the path, on a read error, a
/// directory, or more than `limit` bytes.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readSource(llvm::StringRef path, llvm::StringRef bufferName, size_t limit = kMaxSourceBytes);

/// The output files of one invocation, written all-or-nothing by commit().
class OutputSet {
public:
  /// A file the invocation reads: no output may replace it.
  void protect(llvm::StringRef path);
  /// An output: `option` is how the command line named it ("-o", "--header")
  /// for messages; `path` "-" is standard output.
  void add(llvm::StringRef option, llvm::StringRef path);
  /// The contents of output `index` (in add() order).
  void setContents(size_t index, std::string contents);
  llvm::StringRef contents(size_t index) const { return files[index].contents; }
  size_t size() const { return files.size(); }

  /// Checks the destinations without writing anything: distinct, not an
  /// input, a regular file or nothing, in an existing directory.
  llvm::Error check() const;
  /// check(), then writes every file to a temporary beside it and the
  /// standard-output ones to stdout, and renames the temporaries into place
  /// once all are written. On an error no file output is left behind.
  llvm::Error commit();

private:
  struct File {
    std::string option, path, contents;
    bool isStdout() const { return path == "-"; }
    bool inPlace() const; // an existing character device or FIFO

  };
  std::vector<std::string> inputs;
  std::vector<File> files;
};

} // namespace credit

#endif // CREDIT_DRIVER_OUTPUT_H
