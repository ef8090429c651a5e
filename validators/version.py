"""memvet's version, in a leaf module: formats and the OpenAPI document name it without importing the package."""

__version__ = "0.1.0"
