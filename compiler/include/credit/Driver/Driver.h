//===- Driver.h - creditc's pipeline, callable as a function -----*- C++ -*-===//
#ifndef CREDIT_DRIVER_DRIVER_H
#define CREDIT_DRIVER_DRIVER_H

namespace credit {

/// Exit statuses of creditc.
enum ExitStatus { kExitOk = 0, kExitUserError = 1, kExitRejected = 2 };

/// Runs creditc with the given command line; returns the exit status.
int driverMain(int argc, char **argv);

/// `creditc predict op.credit --profile p.json --M m --N n --tB ms`: the cost
/// model (docs/cost-model.md). driverMain dispatches here when argv[1] is
/// "predict"; argv[0] is the program name.
int predictMain(int argc, char **argv);

} // namespace credit

#endif // CREDIT_DRIVER_DRIVER_H
