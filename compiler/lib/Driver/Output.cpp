//===- Output.cpp - creditc's input reader and output writer --------------===//
#include "credit/Driver/Output.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace credit {

static Error fail(const Twine &msg) { return createStringError(inconvertibleErrorCode(), msg); }

Expected<std::unique_ptr<MemoryBuffer>> readSource(StringRef path, StringRef bufferName, size_t limit) {
  const bool isStdin = path == "-";
  auto cannot = [&](const Twine &why) { return fail("cannot read '" + path + "': " + why); };
  sys::fs::file_t fd = sys::fs::getStdinHandle();
  if (!isStdin) {
    sys::fs::file_status st;
    if (std::error_code ec = sys::fs::status(path, st))
      return cannot(ec.message());
    if (sys::fs::is_directory(st))
      return cannot("it is a directory");
    Expected<sys::fs::file_t> opened = sys::fs::openNativeFileForRead(path);
    if (!opened)
      return cannot(toString(opened.takeError()));
    fd = *opened;
  }
  // Read in chunks up to one byte past the limit: an endless stream stops there.
  SmallString<0> text;
  std::optional<Error> error;
  for (;;) {
    constexpr size_t kChunk = 64 * 1024;
    size_t used = text.size();
    text.resize_for_overwrite(used + kChunk);
    Expected<size_t> got = sys::fs::readNativeFile(fd, MutableArrayRef<char>(text.data() + used, kChunk));
    if (!got) {
      text.truncate(used);
      error = cannot(toString(got.takeError()));
      break;
    }
    text.truncate(used + *got);
    if (*got == 0)
      break;
    if (text.size() > limit) {
      error = cannot(formatv("more than {0} MiB; creditc reads sources of at most that size",
                             limit >> 20)
                         .str());
      break;
    }
  }
  if (!isStdin)
    sys::fs::closeFile(fd);
  if (error)
    return std::move(*error);
  return MemoryBuffer::getMemBufferCopy(text, bufferName);
}

void OutputSet::protect(StringRef path) {
  if (!path.empty() && path != "-")
    inputs.push_back(path.str());
}

void OutputSet::add(StringRef option, StringRef path) { files.push_back({option.str(), path.str(), ""}); }

void OutputSet::setContents(size_t index, std::string contents) { files[index].contents = std::move(contents); }

/// The path made absolute and free of `.`/`..`: two spellings of one new file
/// compare equal.
static std::string normalized(StringRef path) {
  SmallString<256> p(path);
  sys::fs::make_absolute(p);
  sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

/// Where writing `path` lands: through a symbolic link (/dev/stdout, a link
/// to a file elsewhere) its target, so that the link stays a link.
static std::string destination(StringRef path) {
  SmallString<256> real;
  if (sys::fs::is_symlink_file(path) && !sys::fs::real_path(path, real))
    return std::string(real);
  return path.str();
}

static bool sameFile(StringRef a, StringRef b) {
  bool same = false;
  if (!sys::fs::equivalent(a, b, same) && same)
    return true;
  return normalized(a) == normalized(b);
}

/// A character device (/dev/null, a terminal) or a FIFO: written into, never
/// replaced by a file of the same name.
static bool writtenInPlace(const sys::fs::file_status &st) {
  return st.type() == sys::fs::file_type::character_file || st.type() == sys::fs::file_type::fifo_file;
}

bool OutputSet::File::inPlace() const {
  sys::fs::file_status st;
  return !isStdout() && !sys::fs::status(destination(path), st) && writtenInPlace(st);
}

Error OutputSet::check() const {
  for (size_t i = 0; i < files.size(); ++i) {
    const File &f = files[i];
    if (f.isStdout())
      continue;
    const std::string named = f.option + " '" + f.path + "'";
    for (const std::string &in : inputs)
      if (sameFile(f.path, in))
        return fail(named + " is an input of this command; creditc never overwrites its inputs");
    for (size_t j = 0; j < i; ++j)
      if (!files[j].isStdout() && sameFile(f.path, files[j].path))
        return fail(files[j].option + " and " + f.option + " name the same file '" + f.path +
                    "'; each output needs its own file");
    sys::fs::file_status st;
    if (!sys::fs::status(destination(f.path), st)) {
      if (sys::fs::is_directory(st))
        return fail(named + " is a directory");
      if (!sys::fs::is_regular_file(st) && !writtenInPlace(st))
        return fail(named + " exists and is neither a regular file nor a character device or FIFO "
                            "(creditc replaces only regular files)");
      continue;
    }
    const std::string dest = destination(f.path);
    StringRef dir = sys::path::parent_path(dest);
    if (dir.empty())
      dir = ".";
    if (!sys::fs::is_directory(dir))
      return fail(named + ": the directory '" + dir + "' does not exist");
  }
  return Error::success();
}

Error OutputSet::commit() {
  if (Error err = check())
    return err;
  // 1. Every file output to a temporary beside its destination.
  std::vector<std::optional<sys::fs::TempFile>> temps(files.size());
  auto discardAll = [&] {
    for (std::optional<sys::fs::TempFile> &t : temps)
      if (t)
        consumeError(t->discard());
  };
  std::vector<bool> inPlace(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const File &f = files[i];
    inPlace[i] = f.inPlace();
    if (f.isStdout() || inPlace[i])
      continue;
    Expected<sys::fs::TempFile> temp = sys::fs::TempFile::create(
        destination(f.path) + ".tmp-%%%%%%", sys::fs::all_read | sys::fs::all_write);
    if (!temp) {
      discardAll();
      return fail("cannot write " + f.option + " '" + f.path + "': " + toString(temp.takeError()));
    }
    temps[i].emplace(std::move(*temp));
    raw_fd_ostream os(temps[i]->FD, /*shouldClose=*/false);
    os << f.contents;
    os.flush();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      discardAll();
      return fail("cannot write " + f.option + " '" + f.path + "': " + ec.message());
    }
  }
  // 2. The ones that cannot be staged: standard output, devices and FIFOs.
  for (size_t i = 0; i < files.size(); ++i) {
    const File &f = files[i];
    if (f.isStdout()) {
      outs() << f.contents;
      outs().flush();
      if (outs().has_error()) {
        std::error_code ec = outs().error();
        outs().clear_error();
        discardAll();
        return fail("cannot write " + f.option + " to standard output: " + ec.message());
      }
    } else if (inPlace[i]) {
      std::error_code ec;
      {
        raw_fd_ostream os(destination(f.path), ec, sys::fs::CD_OpenExisting);
        if (!ec) {
          os << f.contents;
          os.flush();
          ec = os.error();
          os.clear_error();
          if (!ec) {
            os.close();
            ec = os.error();
            os.clear_error();
          }
        }
      }
      if (ec) {
        discardAll();
        return fail("cannot write " + f.option + " '" + f.path + "': " + ec.message());
      }
    }
  }
  // 3. All complete: rename them into place. A failed rename removes the
  // outputs already renamed, so that none of this invocation's remains.
  std::vector<std::string> kept;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!temps[i])
      continue;
    const std::string dest = destination(files[i].path);
    Error err = temps[i]->keep(dest);
    temps[i].reset();
    if (err) {
      discardAll();
      for (const std::string &k : kept)
        sys::fs::remove(k);
      return fail("cannot write " + files[i].option + " '" + files[i].path + "': " +
                  toString(std::move(err)));
    }
    kept.push_back(dest);
  }
  return Error::success();
}

} // namespace credit
