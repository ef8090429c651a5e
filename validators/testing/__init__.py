"""Tools for plugin authors: case files and Hypothesis strategies."""
