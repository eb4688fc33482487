# Install rules: `cmake --install build --prefix P` gives P/include/jx/*.h, P/lib/libjx.a,
# libjx_runtime.a, libjx_runtime.so, libjx_aot_main.a and P/lib/cmake/jx (jx-config.cmake,
# its version file, the exported targets and jx_aot.cmake), so that `find_package(jx)` works.
#
# Two export sets, so that a program built from ahead-of-time objects needs no LLVM or fmt:
#   jx-runtime-targets.cmake   jx::runtime, jx::runtime_shared      (Threads, libmvec)
#   jx-compiler-targets.cmake  jx::jx, jx::aot_main                 (+ fmt, LLVM 19.1)
# In the tree the same names are ALIAS targets (CMakeLists.txt); the exported ones exist only in
# the installed package.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(JX_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/jx")

set_target_properties(jx_aot_main PROPERTIES EXPORT_NAME aot_main)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/jx" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h")

install(TARGETS jx_runtime jx_runtime_shared
  EXPORT jx-runtime-targets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
# jx::jx is an interface over one static library per compiler stage (src/CMakeLists.txt).
install(TARGETS jx jx_aot_main jx_base jx_ir jx_interp jx_transforms jx_passes jx_sharding jx_codegen jx_backend
                jx_mpi jx_compile jx_io jx_api jx_aot
  EXPORT jx-compiler-targets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

install(EXPORT jx-runtime-targets NAMESPACE jx:: DESTINATION "${JX_INSTALL_CMAKEDIR}")
install(EXPORT jx-compiler-targets NAMESPACE jx:: DESTINATION "${JX_INSTALL_CMAKEDIR}")

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/jx-config.cmake.in"
  "${PROJECT_BINARY_DIR}/jx-config.cmake"
  INSTALL_DESTINATION "${JX_INSTALL_CMAKEDIR}")
# Before 1.0 a minor version may break the API.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/jx-config-version.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/jx-config.cmake" "${PROJECT_BINARY_DIR}/jx-config-version.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/jx_aot.cmake"
        DESTINATION "${JX_INSTALL_CMAKEDIR}")
