"""Extensions: body caps while downloading, progress lines, the run outcome."""
