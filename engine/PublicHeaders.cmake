# The installed headers: what an embedder includes (examples/ and the find_package consumer
# tests/package/: the Engine, the graph reader and writer, the run report's renderers, in-memory
# recipes) and what those include; at most 30. tests/layers/check_public_headers.py keeps this
# list that closure; run it with --print to regenerate. Every other header under include/ is
# internal to the build: the in-tree front ends (tools/, python/src/) are built from the source
# tree and may include any of them.
set(QNNRULES_PUBLIC_HEADERS
  qnnrules/Engine.h
  qnnrules/annotate/Annotator.h
  qnnrules/annotate/Encodings.h
  qnnrules/annotate/Recipe.h
  qnnrules/core/DiagCodes.def
  qnnrules/core/Diagnostic.h
  qnnrules/core/InlineVector.h
  qnnrules/core/LoadLimits.h
  qnnrules/core/OptionalBox.h
  qnnrules/core/QnnTypes.h
  qnnrules/core/SourceMark.h
  qnnrules/core/Status.h
  qnnrules/delegate/DelegationReport.h
  qnnrules/graph/Graph.h
  qnnrules/graph/GraphSource.h
  qnnrules/graph/NameIndex.h
  qnnrules/graph/QuantSpec.h
  qnnrules/io/GraphReader.h
  qnnrules/io/GraphWriter.h
  qnnrules/io/ReaderModules.h
  qnnrules/model/BackendOptions.h
  qnnrules/model/Hardware.h
  qnnrules/model/Lowering.h
  qnnrules/model/QuantConfig.h
  qnnrules/model/Soc.h
  qnnrules/pipeline/PhaseTimes.h
  qnnrules/pipeline/RunReport.h
  qnnrules/pipeline/RunReportFormat.h
  qnnrules/validate/Validator.h
)
