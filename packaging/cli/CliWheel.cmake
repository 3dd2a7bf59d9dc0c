# The qnnrules-cli wheel (packaging/cli/pyproject.toml): CMake component "cli" installs what the
# commands need into the package qnnrules_cli/, at the root of site-packages:
#   qnnrules_cli/__init__.py, __main__.py   the launcher (python/qnnrules_cli.py) and
#                                           `python -m qnnrules_cli`
#   qnnrules_cli/bin/qnn-validate, qnn-rules
#   qnnrules_cli/libqnnrules_onnx.so, libqnnrules_pt2.so
#   qnnrules_cli/rules/
# From <package>/bin the commands find the modules in <package>/ and the rules in
# <package>/rules, whatever the package is called (ReaderModules.h, findBuiltinRulesDir), as the
# qnnrules wheel's commands do from qnnrules/bin. A package of its own, not qnnrules/: both wheels
# can be installed side by side without one overwriting the other's files.
#
# Included only in a wheel build (SKBUILD); EXCLUDE_FROM_ALL besides, so that the qnnrules
# wheel (component "python") and `cmake --install` never install any of it.
set(_cli_pkg qnnrules_cli)
install(TARGETS qnn-validate qnn-rules RUNTIME DESTINATION "${_cli_pkg}/bin" COMPONENT cli EXCLUDE_FROM_ALL)
install(TARGETS qnnrules_onnx qnnrules_pt2 LIBRARY DESTINATION "${_cli_pkg}" COMPONENT cli EXCLUDE_FROM_ALL)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/rules/" DESTINATION "${_cli_pkg}/rules" COMPONENT cli EXCLUDE_FROM_ALL)
install(FILES "${PROJECT_SOURCE_DIR}/python/qnnrules_cli.py" DESTINATION "${_cli_pkg}" RENAME __init__.py
        COMPONENT cli EXCLUDE_FROM_ALL)
install(FILES "${PROJECT_SOURCE_DIR}/python/qnnrules_cli_main.py" DESTINATION "${_cli_pkg}" RENAME __main__.py
        COMPONENT cli EXCLUDE_FROM_ALL)
