/* credit/capi.h -- a C API over the runtime for languages without a C++ compiler at
 * hand (the Python package, python/credit): compile a generated file with NVRTC, load
 * it, and launch its kernels with the same launchers and dispatch as the file's own
 * extern "C" API (credit/runtime/Launch.h, Dispatch.h).
 *
 * The launch API of a generated file is host C++, which NVRTC does not compile. What
 * the launchers need from it -- the kernel table and the workload's description -- is
 * read instead from the compiled image: credit_program_create appends a few lines to
 * the source that store the description (derived by the device library's own
 * Contract<Workload>) as a __device__ array, and reads that array back from the cubin.
 * The dispatch's device profile and traffic figures are read from the file's text.
 *
 * Every function returns a status: 0 on success; a launcher's status (Launch.h: 1..99
 * refused before launching, 100.. bad protocol, variant, plan or timing, 1000 +
 * cudaError_t); or CREDIT_CAPI_ERROR, with the message in credit_capi_last_error().
 * Thread-safe: a program may be launched from any thread.
 */
#ifndef CREDIT_CAPI_H
#define CREDIT_CAPI_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CREDIT_CAPI_BUILD) && defined(__GNUC__)
#define CREDIT_CAPI_API __attribute__((visibility("default")))
#else
#define CREDIT_CAPI_API
#endif

#define CREDIT_CAPI_VERSION 1
#define CREDIT_CAPI_ERROR (-1)

typedef struct credit_program credit_program;

/* What was decided for a shape (the same fields as Dispatch.h's credit_plan). */
typedef struct credit_capi_plan {
  int variant;        /* 0 reread, 1 staged, 2 cluster */
  int P;              /* cluster size (1 for reread and staged) */
  int protocol;       /* 0 sync, 1 mbarrier */
  int baseline;       /* the kernel T_B timed: 0 reread, 1 staged */
  int source;         /* 0 the model, 1 autotune, 2 fallback, 3 no profile: the structural rule,
                         4 the model's closest candidates timed */
  int evaluated;      /* the model evaluated at least one cluster size */
  double tB_ms;
  double deltaT_ms;
  double measured_ms;
} credit_capi_plan;

CREDIT_CAPI_API int credit_capi_version(void);

/* The message of the last CREDIT_CAPI_ERROR (or launch failure) on this thread. */
CREDIT_CAPI_API const char* credit_capi_last_error(void);

/* Compiles `source` (a file creditc generated, lean or --standalone) for `arch`
 * ("sm_90", ...) through NVRTC with the kernel cache (`cache_dir`: NULL or "" the
 * default, $CREDIT_CACHE_DIR or ~/.cache/creditc; `use_cache` 0: no cache), and reads
 * its kernel table and workload description (any symbol prefix: credit_<kernel> or
 * creditc --prefix's). `name`: the program's name in NVRTC's messages. Needs no GPU.
 * On success *out is a program to destroy. */
CREDIT_CAPI_API int credit_program_create(const char* source, const char* name, const char* arch, const char* cache_dir,
                          int use_cache, credit_program** out);
CREDIT_CAPI_API void credit_program_destroy(credit_program* program);

/* A JSON object: kernel (the prefix, without credit_), signature, arch, the kernels' names, forms and vector widths,
 * the workload description, whether the file has a device profile, the variants, and
 * the compile (from_cache, compile_ms, cubin_bytes, cache_key, cache_entry, warning,
 * log). Owned by the program. */
CREDIT_CAPI_API const char* credit_program_info(const credit_program* program);

/* Loads the cubin into the CUDA runtime (a library, loaded into each device's context
 * on first use). Needs a driver; idempotent. */
CREDIT_CAPI_API int credit_program_load(credit_program* program);

/* Launches on `device` and `stream` (a cudaStream_t; NULL: the legacy stream).
 * args: the data pointers in signature order (inputs, then outputs). variant:
 *   "auto"     the model-driven dispatch where the file has a device profile (times the
 *              baseline once per shape, see Dispatch.h), else the structural rule: the
 *              staged kernel where the row fits one CTA's shared memory, else the cluster
 *              kernel at the smallest legal P (mbarrier), else the reread kernel;
 *   "cluster"  P CTAs per row (P == 0: the smallest legal P), `protocol` 0 sync,
 *              1 mbarrier; "staged", "reread" (P must be 0 or 1);
 *   any other variant of the file's launch_generic (Launch.h: "cluster_regs", ...),
 *   P == 0 as above.
 * The persistent forms run with the static rows: the row-claim counter is a symbol of
 * the launch API, which NVRTC does not compile. */
CREDIT_CAPI_API int credit_program_launch(credit_program* program, const char* variant, void* const* args, long long M,
                          long long N, int P, int protocol, void* stream, int device);

/* What "auto" launched (or would launch) for (M, N) on `device`: 0, or 102 where no
 * decision was made yet. */
CREDIT_CAPI_API int credit_program_last_plan(credit_program* program, long long M, long long N, int device,
                             credit_capi_plan* out);

/* The dispatch's autotune (Dispatch.h): times every variant on these buffers and makes
 * "auto" use the fastest for (M, N). Needs a device profile in the file (else 101). */
CREDIT_CAPI_API int credit_program_autotune(credit_program* program, void* const* args, long long M, long long N,
                            void* stream, int device, credit_capi_plan* tuned);

/* The largest legal N (Eq. 3) of a variant at P for the file's target; 0 if none, or if
 * the file was not generated with that variant. */
CREDIT_CAPI_API long long credit_program_max_legal_n(const credit_program* program, const char* variant, int P, int protocol);

/* Text for a status. */
CREDIT_CAPI_API const char* credit_capi_status_string(int status);

#ifdef __cplusplus
}
#endif

#endif /* CREDIT_CAPI_H */
