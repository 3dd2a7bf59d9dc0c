# Installs the main build into a fresh prefix (not the configured one), builds tests/package
# against the installed qnnrules package only, and runs the consumer twice: with the package's
# rules directory, and installed into <prefix>/bin where the engine must find
# <prefix>/share/qnnrules/rules itself; both read an ONNX model and a .pt2 archive (the reader
# modules, engine/src/io/ReaderModule.h). qnn-validate, found through PATH, reads both too: the
# installed one, the build tree's, and the installed one after the prefix is moved.
#
# cmake -DBUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=... -DGENERATOR=... -DCXX=... -DDATA_DIR=...
#       -DVALIDATE=build-tree qnn-validate [-DCXX_FLAGS=...] [-DBUILD_TYPE=...] [-DPYTHON=interpreter]
#       -P run_package_test.cmake
foreach(var BUILD_DIR WORK_DIR SOURCE_DIR GENERATOR CXX DATA_DIR VALIDATE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_package_test.cmake needs -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "command failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
# The reader modules (engine/src/io/ReaderModule.h) beside the installed libraries, where an
# installed tool looks for them.
foreach(f include/qnnrules/Engine.h share/qnnrules/rules/socs.yaml lib/qnnrules/libqnnrules_onnx.so
          lib/qnnrules/libqnnrules_pt2.so)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()

# Only the prefix is visible to the consumer: no build or source tree paths.
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${consumer_build}" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}" "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF")
run(${CMAKE_COMMAND} --build "${consumer_build}")

set(clean_env ${CMAKE_COMMAND} -E env --unset=QNNRULES_BUILTIN_RULES --unset=QNNRULES_PATH
    --unset=QNNRULES_ONNX_MODULE --unset=QNNRULES_PT2_MODULE)
set(graphs "${DATA_DIR}/onnx/conv_8a8w.onnx" "${DATA_DIR}/pt2/q8a8w.pt2")
run(${clean_env} "${consumer_build}/qnnrules_consumer" explicit ${graphs})
message(STATUS "${last_output}")
run(${CMAKE_COMMAND} --install "${consumer_build}" --prefix "${prefix}")
run(${clean_env} "${prefix}/bin/qnnrules_consumer" discover ${graphs})
message(STATUS "${last_output}")

# qnn-validate found through PATH (so argv[0] is a bare name), run from an unrelated directory:
# it finds its reader modules and rules from /proc/self/exe. BIN_DIR is the directory put first.
set(elsewhere "${WORK_DIR}/elsewhere")
file(MAKE_DIRECTORY "${elsewhere}")
function(validate_through_path bin_dir what)
  foreach(graph IN LISTS graphs)
    execute_process(COMMAND ${clean_env} "PATH=${bin_dir}:$ENV{PATH}" qnn-validate "${graph}" --soc SM8650
                    WORKING_DIRECTORY "${elsewhere}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "verdict: VALID")
      message(FATAL_ERROR "${what}: PATH=${bin_dir}:$PATH qnn-validate ${graph}: exit ${rc}\n${out}\n${err}")
    endif()
    string(REGEX MATCH "[^\n]*op nodes checked[^\n]*" summary "${out}")
    message(STATUS "${what}: ${summary}")
  endforeach()
endfunction()
validate_through_path("${prefix}/bin" "installed")
get_filename_component(build_bin "${VALIDATE}" DIRECTORY)
validate_through_path("${build_bin}" "build tree")

# The installed Python package finds the installed rules relative to itself.
if(PYTHON)
  file(GLOB pkg LIST_DIRECTORIES true "${prefix}/lib/python*/dist-packages/qnnrules")
  if(NOT pkg)
    message(FATAL_ERROR "the qnnrules Python package was not installed under ${prefix}/lib")
  endif()
  get_filename_component(site "${pkg}" DIRECTORY)
  run(${clean_env} "PYTHONPATH=${site}" "${PYTHON}" -c
      "import qnnrules, os, sys; e = qnnrules.Engine(soc='SM8650'); \
want = os.path.join(sys.argv[1], 'share', 'qnnrules', 'rules'); \
assert qnnrules.__file__.startswith(sys.argv[1]), qnnrules.__file__; \
assert str(e.search_path[0]) == want, (str(e.search_path[0]), want); print('python package: ok', want)"
      "${prefix}")
  message(STATUS "${last_output}")
endif()

# The installed tree moved elsewhere: the tool still finds what it needs beside itself.
set(moved "${WORK_DIR}/moved-prefix")
file(RENAME "${prefix}" "${moved}")
validate_through_path("${moved}/bin" "moved install")
