# The how-to generators of tools/scaffold/ (issue 35): each is run on a temporary copy of the
# checkout and what it wrote is read by the built tools and the compiler, so a generator that
# stops matching the engine or the rule format fails here (tests/scaffold/test_scaffold.py).
add_test(NAME scaffold_generators
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/scaffold/test_scaffold.py
                 --validate $<TARGET_FILE:qnn-validate> --rules-tool $<TARGET_FILE:qnn-rules>
                 --cxx ${CMAKE_CXX_COMPILER})
set_tests_properties(scaffold_generators PROPERTIES
  TIMEOUT 600 ENVIRONMENT "QNNRULES_PATH=;PYTHONDONTWRITEBYTECODE=1")
