# jx_add_aot_library(<target> GENERATOR <source> FUNCTIONS <name>... [TARGET_CPU <cpu>])
#
# Builds the generator program <source> (it registers functions with JX_AOT_FUNCTION and links
# jx::aot_main), runs it at build time to write <name>.o and <name>.h for each function, and
# makes <target> a static library of those objects: link it, include "<name>.h", and the program
# needs only jx::runtime (no LLVM). TARGET_CPU: "host" (default) or an LLVM CPU name such as
# x86-64-v3. Libraries from one generator source share its executable, whose target name the
# library's JX_AOT_GENERATOR property holds (to add sources or include directories to it).
function(jx_add_aot_library target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "GENERATOR;TARGET_CPU" "FUNCTIONS")
  if(NOT arg_GENERATOR OR NOT arg_FUNCTIONS)
    message(FATAL_ERROR "jx_add_aot_library(${target}): GENERATOR and FUNCTIONS are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "jx_add_aot_library(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET jx::aot_main)
    message(FATAL_ERROR "jx_add_aot_library(${target}) runs a generator, which needs jx's compiler "
                        "(jx::aot_main): find_package(jx COMPONENTS compiler), with LLVM 19.1")
  endif()
  if(NOT arg_TARGET_CPU)
    set(arg_TARGET_CPU host)
  endif()
  get_filename_component(source "${arg_GENERATOR}" ABSOLUTE)
  string(MD5 generator_hash "${source}")
  string(SUBSTRING "${generator_hash}" 0 12 generator_hash)
  get_filename_component(generator_stem "${source}" NAME_WE)
  set(generator "jx_aot_generator_${generator_stem}_${generator_hash}")
  if(NOT TARGET ${generator})
    add_executable(${generator} "${source}")
    target_link_libraries(${generator} PRIVATE jx::aot_main)
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.aot")
  set(objects "")
  set(headers "")
  foreach(name IN LISTS arg_FUNCTIONS)
    list(APPEND objects "${dir}/${name}.o")
    list(APPEND headers "${dir}/${name}.h")
  endforeach()
  add_custom_command(
    OUTPUT ${objects} ${headers}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
    COMMAND ${generator} --output-dir "${dir}" --target-cpu "${arg_TARGET_CPU}" ${arg_FUNCTIONS}
    DEPENDS ${generator}
    COMMENT "jx.aot: ${target} (${arg_FUNCTIONS}) for ${arg_TARGET_CPU}"
    VERBATIM)
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${target} STATIC ${objects} ${headers})
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  target_include_directories(${target} PUBLIC "${dir}")
  target_link_libraries(${target} PUBLIC jx::runtime)
  set_target_properties(${target} PROPERTIES JX_AOT_GENERATOR ${generator})
endfunction()
