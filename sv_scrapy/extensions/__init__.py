"""Extensions: body caps while downloading, AutoThrottle that respects the floors."""
