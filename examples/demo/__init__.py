"""The demo's data: a sessions file, scripted answers and the script (package data of ``memvet.demo``).

Installed as a package so that ``memvet demo`` finds it from a wheel, with no checkout.
"""
