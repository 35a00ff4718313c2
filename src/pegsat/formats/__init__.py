"""Formats and pictures: plan notations (one registry), PDDL in and out, ASCII and SVG
drawings, the stepping HTML page.

May import: the foundation, ``model`` and ``engine`` (plans are replayed before they are
drawn). Readers check what they read and raise one ``PegsatError`` line naming the place.
"""
