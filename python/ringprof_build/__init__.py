"""The build backend of `pip install .` (pyproject.toml): see backend.py."""
