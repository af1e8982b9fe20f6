//===- creditc.cpp - The creditc command-line tool ------------------------===//
//
// All of the driver lives in compiler/lib/Driver so tests and other tools can
// call it; this is only the process entry point.
//
//===----------------------------------------------------------------------===//
#include "credit/Driver/Driver.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  return credit::driverMain(argc, argv);
}
