"""First-party plugins of theory-toolkit, one per paper.

Each sub-package is loaded through the ``toolkit.plugins`` entry-point group, exactly like a
third-party plugin; none of them imports another.
"""
