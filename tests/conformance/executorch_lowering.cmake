# ExecuTorch's own QNN lowering as the oracle (issue 33): the verdicts recorded by
# scripts/conformance-executorch.sh (tests/conformance/executorch/lowering/verdicts.json, with the
# quantized .pt2 of each case) against today's rules; fails when node or whole-graph agreement drops
# or false positives/negatives grow beyond expected.json. Standard library only, no ExecuTorch.
add_test(NAME conformance_executorch_lowering
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tools/conformance/executorch/lower_compare.py
                 --validate $<TARGET_FILE:qnn-validate> --jobs 1)
set_tests_properties(conformance_executorch_lowering PROPERTIES
  TIMEOUT 600 ENVIRONMENT "QNNRULES_PATH=;PYTHONDONTWRITEBYTECODE=1")
