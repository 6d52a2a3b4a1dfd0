"""Renderers: plain result objects in, text out. Only `table.py` uses rich."""
