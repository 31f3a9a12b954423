"""paperkg's benchmark scripts (see README.md); not part of the installed package.

This file makes the folder a regular package on purpose: grand-cypher's dependency grandiso installs
a top-level `benchmarks` package into site-packages, which shadows a namespace folder, so without it
`python -m benchmarks.run` and `from benchmarks.synth import generate` would find grandiso's instead.
"""
