# Project-wide warning flags; applied to our targets only (not to third-party headers).
add_library(qnnrules_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # clang spells GCC's -Wshadow=local this way (the sanitizer and fuzz builds use clang).
  target_compile_options(qnnrules_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow-uncaptured-local
    -Wnon-virtual-dtor -Wimplicit-fallthrough)
else()
  target_compile_options(qnnrules_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local
    -Wnon-virtual-dtor -Wimplicit-fallthrough)
endif()
if(QNNRULES_WERROR)
  target_compile_options(qnnrules_warnings INTERFACE -Werror)
endif()
