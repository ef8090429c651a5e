"""Integrations of memvet with data frameworks (optional extras: ``memvet[ray]``)."""
