# Project-wide warning flags; applied to our targets only (not to third-party headers).
add_library(qnnrules_warnings INTERFACE)
target_compile_options(qnnrules_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local
  -Wnon-virtual-dtor -Wimplicit-fallthrough)
if(QNNRULES_WERROR)
  target_compile_options(qnnrules_warnings INTERFACE -Werror)
endif()
