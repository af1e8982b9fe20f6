import os
import lit.formats

config.name = "creditc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".credit", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.credit_obj_root, "tests", "lit")

path = os.pathsep.join([config.credit_tools_dir, config.filecheck_dir,
                        os.path.join(config.cuda_root, "bin"), config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
# Sanitizer runtime options travel into the tools the tests run.
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%examples", os.path.join(config.credit_src_root, "dsl_examples")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cuda_include", os.path.join(config.cuda_root, "include")))
# The device library and the runtime's host headers (the credit::device target).
config.substitutions.append(("%credit_include", os.path.join(config.credit_src_root, "runtime", "include")))
config.substitutions.append(("%fixtures", os.path.join(config.credit_src_root, "tests", "device", "fixtures")))

# nvcc, for the tests that compile generated files.
if os.path.exists(os.path.join(config.cuda_root, "bin", "nvcc")):
    config.available_features.add("nvcc")

# credit-calibrate is built only where CMake found a CUDA compiler.
if os.path.exists(os.path.join(config.credit_tools_dir, "credit-calibrate")):
    config.available_features.add("credit-calibrate")
