//===- Driver.h - creditc's pipeline, callable as a function -----*- C++ -*-===//
#ifndef CREDIT_DRIVER_DRIVER_H
#define CREDIT_DRIVER_DRIVER_H

namespace credit {

/// Exit statuses of creditc.
enum ExitStatus { kExitOk = 0, kExitUserError = 1, kExitRejected = 2 };

/// Runs creditc with the given command line; returns the exit status.
int driverMain(int argc, char **argv);

} // namespace credit

#endif // CREDIT_DRIVER_DRIVER_H
