"""Orchestration traces: schema, graph validation, metrics, importers."""
