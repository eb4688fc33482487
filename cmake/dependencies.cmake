# Finds jx's dependencies (Debian packages, installed by scripts/install-deps.sh).
find_program(CCACHE_PROGRAM ccache)
# Paths under the checkout are hashed relative to it, and debug builds' working directory not at
# all, so a fresh clone elsewhere (CI) reuses what an earlier clone compiled.
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
                                  CCACHE_NOHASHDIR=1 ${CCACHE_PROGRAM})
endif()

# gold links much faster than bfd on 2 cores; clang's trees link with lld where there is one
# (gold warns "Cannot export local symbol" for each of ASan's report stubs in every executable).
include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=lld" JX_HAS_LLD)
check_linker_flag(CXX "-fuse-ld=gold" JX_HAS_GOLD)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND JX_HAS_LLD)
  add_link_options(-fuse-ld=lld)
elseif(JX_HAS_GOLD)
  add_link_options(-fuse-ld=gold)
endif()

find_package(fmt REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED)
# "19" alone does not match Debian's 19.1 config; the JIT issue links the shared LLVM target.
find_package(LLVM 19.1 REQUIRED CONFIG)
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")
separate_arguments(LLVM_DEFINITIONS_LIST NATIVE_COMMAND ${LLVM_DEFINITIONS})
if(JX_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# Open MPI (optional): jx::distributed's transport. Without it jx is one process and
# jx::distributed::initialize raises.
# The C API, called from C++ (not the removed C++ bindings).
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI COMPONENTS CXX QUIET)
option(JX_MPI "Build jx::distributed over MPI (needs Open MPI: libopenmpi-dev)" ${MPI_CXX_FOUND})
if(JX_MPI AND NOT MPI_CXX_FOUND)
  message(FATAL_ERROR "JX_MPI=ON needs MPI: install libopenmpi-dev and openmpi-bin")
endif()
message(STATUS "jx::distributed over MPI: ${JX_MPI}")
