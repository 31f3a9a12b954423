"""`python -m paperkg.extract.training`: rebuild every shipped model (see `training/build.py`)."""

from paperkg.extract.training.build import main

main()
