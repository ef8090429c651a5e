"""The extractor: run the LLM, validate, repair."""
