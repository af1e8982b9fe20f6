// credit/runtime/Layout.h -- every constexpr rule of the runtime in one include: the
// shared-memory layout and Eq. 3 (SmemLayout.h), the persistent ring (Ring.h), the
// kernel forms and which runs at a shape (FormPolicy.h), the targets (Target.h).
#ifndef CREDIT_LAYOUT_H
#define CREDIT_LAYOUT_H

#include "credit/runtime/FormPolicy.h"
#include "credit/runtime/Ring.h"
#include "credit/runtime/SmemLayout.h"
#include "credit/runtime/Target.h"

#endif  // CREDIT_LAYOUT_H
