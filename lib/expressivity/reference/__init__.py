"""Reference implementations: the plain, slow computations the fast ones are tested against."""
